import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/core/logger.js';
import { collectExpiredVerdicts, startVerdictGc } from '../../src/registry/verdict-gc.js';
import { eventually } from '../support/eventually.js';
import type { FakeClock } from '../support/fake-clock.js';
import type { JsonObject } from '../support/json.js';
import { call, snapshot, startTestServer, statusBodyOf, verdictBody, type TestServer } from './harness.js';

const VERDICTS = '/api/v1/verdicts';

describe('verdicts API', () => {
  let t: TestServer;
  let clock: FakeClock;
  before(async () => {
    t = await startTestServer();
    clock = t.clock as FakeClock;
  });
  after(async () => {
    await t.close();
  });

  const names = async (query: string): Promise<string[]> =>
    (await call(t, 'GET', `${VERDICTS}${query}`)).body['items'].map((v: JsonObject) => v['metadata'].name);

  it('names a Verdict <node>.<hex> when the body does not, and labels it with its node', async () => {
    const res = await call(t, 'POST', VERDICTS, verdictBody('node-1', { next: 'taint NoExecute at 12:03:10Z' }));
    assert.equal(res.status, 201);
    const v = res.body;
    assert.equal(v['apiVersion'], 'shepherd.io/v1');
    assert.equal(v['kind'], 'Verdict');
    assert.match(v['metadata'].name, /^node-1\.[0-9a-f]{16}$/);
    assert.deepEqual(v['metadata'].labels, { 'shepherd.io/node': 'node-1' });
    assert.equal(v['next'], 'taint NoExecute at 12:03:10Z');
    assert.deepEqual((await call(t, 'GET', `${VERDICTS}/${v['metadata'].name}`)).body, v);
    const named = await call(t, 'POST', VERDICTS, verdictBody('node-1', { metadata: { name: 'node-1.first' } }));
    assert.equal(named.status, 201);
    assert.equal(named.body['metadata'].name, 'node-1.first');
  });

  it('refuses a name without its node prefix, a contradicting node label and unknown fields (422, nothing written)', async () => {
    const before = await snapshot(t);
    const prefix = await call(t, 'POST', VERDICTS, verdictBody('node-1', { metadata: { name: 'node-2.x' } }));
    assert.equal(prefix.status, 422);
    assert.equal(statusBodyOf(prefix).details.causes[0].field, 'metadata.name');
    const label = await call(
      t,
      'POST',
      VERDICTS,
      verdictBody('node-1', { metadata: { labels: { 'shepherd.io/node': 'node-2' } } }),
    );
    assert.equal(label.status, 422);
    const unknown = await call(t, 'POST', VERDICTS, {
      ...verdictBody('node-1', { verdict: 'guilty' }),
      evidence: { observedAt: '2026-11-29T12:00:00.000Z', mood: 'bad' },
    });
    assert.equal(unknown.status, 422);
    assert.deepEqual(
      statusBodyOf(unknown)
        .details.causes.map((c: { field: string }) => c.field)
        .sort(),
      ['evidence.mood', 'verdict'],
    );
    const missing = await call(t, 'POST', VERDICTS, { node: 'node-1' });
    assert.equal(missing.status, 422);
    assert.equal(await snapshot(t), before);
  });

  it('selects by node, as a field (node=) or as a label; the node may not change on PUT', async () => {
    await call(t, 'POST', VERDICTS, verdictBody('sel-a'));
    const b = (await call(t, 'POST', VERDICTS, verdictBody('sel-b'))).body;
    assert.deepEqual(await names('?fieldSelector=node=sel-b'), [b['metadata'].name]);
    assert.deepEqual(await names('?labelSelector=shepherd.io/node=sel-b'), [b['metadata'].name]);
    const moved = await call(t, 'PUT', `${VERDICTS}/${b['metadata'].name}`, { ...b, node: 'sel-a' });
    assert.equal(moved.status, 422);
    const edited = await call(t, 'PUT', `${VERDICTS}/${b['metadata'].name}`, { ...b, message: 'edited' });
    assert.equal(edited.status, 200);
    assert.equal(edited.body['message'], 'edited');
    assert.deepEqual(edited.body['metadata'].labels, { 'shepherd.io/node': 'sel-b' });
  });

  it('keeps the newest 50 per node: each create past 50 deletes the oldest, other nodes untouched', async () => {
    const created: string[] = [];
    for (let i = 0; i < 53; i++) {
      const res = await call(t, 'POST', VERDICTS, verdictBody('busy', { message: `#${i}` }));
      assert.equal(res.status, 201);
      created.push(res.body['metadata'].name);
      await clock.advance(1);
    }
    await call(t, 'POST', VERDICTS, verdictBody('busy.other'));
    const kept = await names('?fieldSelector=node=busy');
    assert.equal(kept.length, 50);
    assert.deepEqual(kept, created.slice(3), 'the three oldest went; names sort by time');
    assert.equal((await names('?fieldSelector=node=busy.other')).length, 1);
  });

  it('counts dry-run Verdicts apart: a chatty dry-run controller never pushes live ones out', async () => {
    const live = (await call(t, 'POST', VERDICTS, verdictBody('shadowed'))).body['metadata'].name as string;
    for (let i = 0; i < 52; i++) {
      const res = await call(t, 'POST', VERDICTS, verdictBody('shadowed', { dryRun: true, message: `#${i}` }));
      assert.equal(res.status, 201);
      await clock.advance(1);
    }
    const kept = await names('?fieldSelector=node=shadowed');
    assert.equal(kept.length, 51, '50 dry-run and the one live');
    assert.ok(kept.includes(live), 'the live verdict stays');
  });

  it('expires Verdicts older than --verdict-ttl on the GC interval', async () => {
    // Every Verdict so far is now at least a second old: the first pass past 24 h takes them all.
    await clock.advance(1000);
    const stop = new AbortController();
    const done = startVerdictGc({
      registry: t.server.registry,
      clock,
      ttlMs: 24 * 60 * 60_000,
      intervalMs: 60_000,
      log: silentLogger,
      signal: stop.signal,
    });
    const before = (await names('')).length;
    await clock.advance(12 * 60 * 60_000);
    const young = (await call(t, 'POST', VERDICTS, verdictBody('late'))).body;
    await clock.advance(12 * 60 * 60_000 - 60_000);
    assert.equal((await names('')).length, before + 1, 'none is 24 h old yet');
    await clock.advance(2 * 60_000);
    await eventually(async () => (await names('')).length === 1, { what: 'only the young Verdict left' });
    assert.deepEqual(await names(''), [young['metadata'].name], `all ${before} older ones expired`);
    assert.equal(await collectExpiredVerdicts(t.server.registry, clock), 0);
    stop.abort();
    await done;
  });
});
