import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FakeClock } from '../support/fake-clock.js';
import { eventually } from '../support/eventually.js';
import { flush } from '../support/fake-clock.js';
import { call, leaseBody, nodeBody, startTestServer, statusBodyOf, type TestServer } from './harness.js';
import { openWatch, type WatchConnection } from './watch-client.js';
import type { JsonObject } from '../support/json.js';

function summary(ev: JsonObject | undefined): string {
  if (ev === undefined) return 'END';
  return `${ev['type']} ${ev['object'].metadata.name ?? ''}@${ev['object'].metadata.resourceVersion}`;
}

describe('watch over a listening server', () => {
  let t: TestServer;
  let clock: FakeClock;
  let base: string;
  const open: WatchConnection[] = [];
  const watch = async (path: string): Promise<WatchConnection> => {
    const w = await openWatch(`${base}${path}`);
    open.push(w);
    return w;
  };

  before(async () => {
    t = await startTestServer();
    clock = t.clock as FakeClock;
    await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.server.app.server.address();
    assert.ok(addr !== null && typeof addr === 'object');
    base = `http://127.0.0.1:${addr.port}`;
  });
  afterEach(() => {
    for (const w of open.splice(0)) w.close();
  });
  after(async () => {
    await t.close();
  });

  it('starts with an ADDED per current object, then streams live changes in order', async () => {
    const a = (await call(t, 'POST', '/api/v1/nodes', nodeBody('w-a'))).body;
    await call(t, 'POST', '/api/v1/nodes', nodeBody('w-b'));
    const w = await watch('/api/v1/nodes?watch=true');
    assert.equal(w.status, 200);
    assert.equal(w.contentType, 'application/x-ndjson');
    assert.deepEqual(
      [summary(await w.next()), summary(await w.next())].map((s) => s.split('@')[0]),
      ['ADDED w-a', 'ADDED w-b'],
    );
    await call(t, 'POST', '/api/v1/nodes', nodeBody('w-c'));
    const upd = (
      await call(t, 'PUT', '/api/v1/nodes/w-a', {
        metadata: { name: 'w-a', resourceVersion: a['metadata'].resourceVersion },
        spec: { unschedulable: true },
      })
    ).body;
    const del = (await call(t, 'DELETE', '/api/v1/nodes/w-c')).body;
    const c = await w.next();
    assert.equal(summary(c).split('@')[0], 'ADDED w-c');
    const m = await w.next();
    assert.equal(summary(m), `MODIFIED w-a@${upd['metadata'].resourceVersion}`);
    assert.equal(m?.['object'].spec.unschedulable, true);
    assert.equal(summary(await w.next()), `DELETED w-c@${del['metadata'].resourceVersion}`);
  });

  it('resumes from a resourceVersion: exactly the later changes, none before', async () => {
    const first = (await call(t, 'POST', '/api/v1/nodes', nodeBody('r-1'))).body;
    const second = (await call(t, 'POST', '/api/v1/nodes', nodeBody('r-2'))).body;
    const third = (await call(t, 'POST', '/api/v1/nodes', nodeBody('r-3'))).body;
    const w = await watch(`/api/v1/nodes?watch=1&resourceVersion=${first['metadata'].resourceVersion}`);
    assert.equal(summary(await w.next()), `ADDED r-2@${second['metadata'].resourceVersion}`);
    assert.equal(summary(await w.next()), `ADDED r-3@${third['metadata'].resourceVersion}`);
    const fourth = (await call(t, 'POST', '/api/v1/nodes', nodeBody('r-4'))).body;
    assert.equal(summary(await w.next()), `ADDED r-4@${fourth['metadata'].resourceVersion}`);
  });

  it('filters by labelSelector and by lease namespace', async () => {
    const w = await watch(
      `/api/v1/nodes?watch=true&resourceVersion=${await t.store.currentRevision()}&labelSelector=pick%3Dme`,
    );
    await call(t, 'POST', '/api/v1/nodes', { metadata: { name: 'f-no', labels: { pick: 'not' } } });
    await call(t, 'POST', '/api/v1/nodes', { metadata: { name: 'f-yes', labels: { pick: 'me' } } });
    assert.equal(summary(await w.next()).split('@')[0], 'ADDED f-yes');
    const lw = await watch('/api/v1/namespaces/shepherd-system/leases?watch=true');
    await call(t, 'POST', '/api/v1/leases', leaseBody('ns-node'));
    await call(t, 'POST', '/api/v1/namespaces/shepherd-system/leases', leaseBody('ns-sys'));
    const ev = await lw.next();
    assert.equal(summary(ev).split('@')[0], 'ADDED ns-sys');
    assert.equal(ev?.['object'].metadata.namespace, 'shepherd-system');
  });

  it('sends a BOOKMARK with the newest revision when idle, only if allowed', async () => {
    await call(t, 'POST', '/api/v1/leases', leaseBody('bm-lease'));
    const rev = await t.store.currentRevision();
    const plain = await watch(`/api/v1/nodes?watch=true&resourceVersion=${rev}`);
    const w = await watch(`/api/v1/nodes?watch=true&resourceVersion=${rev}&allowWatchBookmarks=true`);
    await flush();
    await clock.advance(1000);
    const bm = await w.next();
    assert.deepEqual(bm, {
      type: 'BOOKMARK',
      object: { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: String(rev) } },
    });
    // A lease write moves the global revision; the next idle bookmark of the node watch carries it.
    const lease = (await call(t, 'POST', '/api/v1/leases', leaseBody('bm-lease-2'))).body;
    await clock.advance(1000);
    assert.equal((await w.next())?.['object'].metadata.resourceVersion, lease['metadata'].resourceVersion);
    // The watch without allowWatchBookmarks got none of them: its first event is the next real change.
    await call(t, 'POST', '/api/v1/nodes', nodeBody('bm-node'));
    assert.equal(summary(await plain.next()).split('@')[0], 'ADDED bm-node');
  });

  it('answers an ERROR event with a 410 Gone Status for compacted history, then ends', async () => {
    const old = (await call(t, 'POST', '/api/v1/nodes', nodeBody('g-1'))).body;
    await call(t, 'POST', '/api/v1/nodes', nodeBody('g-2'));
    t.store.compact(await t.store.currentRevision());
    const w = await watch(`/api/v1/nodes?watch=true&resourceVersion=${Number(old['metadata'].resourceVersion) - 1}`);
    assert.equal(w.status, 200);
    const ev = await w.next();
    assert.equal(ev?.['type'], 'ERROR');
    assert.equal(ev?.['object'].kind, 'Status');
    assert.equal(ev?.['object'].code, 410);
    assert.equal(ev?.['object'].reason, 'Gone');
    assert.equal(await w.next(), undefined);
  });

  it('answers 400 Status (not a stream) for a malformed selector or resourceVersion', async () => {
    for (const q of ['labelSelector=a%20b%20c', 'resourceVersion=abc', 'timeoutSeconds=soon']) {
      const res = await call(t, 'GET', `/api/v1/nodes?watch=true&${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(statusBodyOf(res).reason, 'BadRequest');
    }
  });

  it('ends the stream cleanly after timeoutSeconds', async () => {
    const w = await watch(
      `/api/v1/nodes?watch=true&resourceVersion=${await t.store.currentRevision()}&timeoutSeconds=5`,
    );
    await flush();
    await clock.advance(4000);
    await call(t, 'POST', '/api/v1/nodes', nodeBody('to-1'));
    assert.equal(summary(await w.next()).split('@')[0], 'ADDED to-1');
    await clock.advance(1000);
    assert.equal(await w.next(), undefined);
    // The finished watch went through the server's onResponse hook like any request.
    await eventually(
      async () =>
        /^http_request_duration_seconds_count\{method="WATCH",route="\/api\/v1\/nodes",status_code="200"\} [1-9]/m.test(
          (await t.server.app.inject({ method: 'GET', url: '/metrics' })).body,
        ),
      { what: 'the ended watch counted in http_request_duration_seconds' },
    );
  });

  it('counts open watch streams in the watchers gauge', async () => {
    const w = await watch(`/api/v1/events?watch=true&resourceVersion=${await t.store.currentRevision()}`);
    assert.equal(w.status, 200);
    const metrics = (await t.server.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /^shepherd_watchers\{resource="events"\} 1$/m);
    assert.equal(t.server.watches.size >= 1, true);
  });
});

describe('closing with open watches', () => {
  it('app.close() returns promptly and the client sees the stream end', async () => {
    const t = await startTestServer();
    await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.server.app.server.address();
    assert.ok(addr !== null && typeof addr === 'object');
    const w = await openWatch(`http://127.0.0.1:${addr.port}/api/v1/nodes?watch=true&allowWatchBookmarks=true`);
    const w2 = await openWatch(`http://127.0.0.1:${addr.port}/api/v1/leases?watch=true`);
    assert.equal(t.server.watches.size, 2);
    const started = performance.now();
    await t.server.app.close();
    assert.ok(performance.now() - started < 1000, 'close() did not wait for the watch streams');
    assert.equal(await w.next(), undefined);
    assert.equal(await w2.next(), undefined);
    assert.equal(t.server.watches.size, 0);
    await t.close();
  });
});
