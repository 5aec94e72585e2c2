import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DEFAULT_LIST_SNAPSHOT_TTL_MS } from '../../src/store/sqlite/list-snapshots.js';
import { zone } from '../store/fixtures.js';
import type { FakeClock } from '../support/fake-clock.js';
import type { JsonObject } from '../support/json.js';
import { call, leaseBody, nodeBody, startTestServer, statusBodyOf, type TestServer } from './harness.js';

const names = (body: JsonObject): string[] => (body['items'] as JsonObject[]).map((o) => o['metadata'].name);
const token = (body: JsonObject): string | undefined => body['metadata'].continue;

/** Every page of `path`, following continue, with `between` run before each later page. */
async function pages(
  t: TestServer,
  path: string,
  between: (n: number) => Promise<void> = async () => {},
): Promise<JsonObject[]> {
  const sep = path.includes('?') ? '&' : '?';
  const out: JsonObject[] = [];
  let next: string | undefined;
  do {
    if (out.length > 0) await between(out.length);
    const res = await call(t, 'GET', next === undefined ? path : `${path}${sep}continue=${encodeURIComponent(next)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    out.push(res.body);
    next = token(res.body);
  } while (next !== undefined);
  return out;
}

describe('list paging (docs/api.md#paging)', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(async () => {
    await t.close();
  });
  const createNodes = (list: string[], labels: (name: string) => Record<string, string> = () => ({})) =>
    Promise.all(
      list.map((n) => t.server.registry.nodes.create(nodeBody(n, { metadata: { name: n, labels: labels(n) } }))),
    );

  it('answers 500 items when the client names no limit, with continue for the rest at the same resourceVersion', async () => {
    await createNodes(Array.from({ length: 620 }, (_, i) => `n-${String(i).padStart(3, '0')}`));
    const [first, second, ...rest] = await pages(t, '/api/v1/nodes');
    assert.equal(rest.length, 0);
    assert.equal(names(first!).length, 500);
    assert.equal(first!['kind'], 'NodeList');
    assert.equal(typeof token(first!), 'string');
    assert.equal(names(second!).length, 120);
    assert.equal(token(second!), undefined);
    assert.equal(second!['metadata'].resourceVersion, first!['metadata'].resourceVersion);
    assert.deepEqual(
      [...names(first!), ...names(second!)],
      Array.from({ length: 620 }, (_, i) => `n-${String(i).padStart(3, '0')}`),
    );
  });

  it('every page is read at the first page resourceVersion, whatever is written between pages', async () => {
    await createNodes(['a', 'b', 'c', 'd', 'e']);
    const before = (await call(t, 'GET', '/api/v1/nodes?limit=100')).body;
    const got = await pages(t, '/api/v1/nodes?limit=2', async (n) => {
      if (n !== 1) return;
      const d = (await call(t, 'GET', '/api/v1/nodes/d')).body;
      await call(t, 'PUT', '/api/v1/nodes/d', { ...d, spec: { unschedulable: true } });
      await call(t, 'DELETE', '/api/v1/nodes/c');
      await call(t, 'POST', '/api/v1/nodes', nodeBody('cc'));
    });
    assert.deepEqual(got.map(names), [['a', 'b'], ['c', 'd'], ['e']]);
    assert.deepEqual(
      got.flatMap((p) => p['items'] as JsonObject[]),
      before['items'],
    );
    for (const p of got) assert.equal(p['metadata'].resourceVersion, before['metadata'].resourceVersion);
  });

  it('label and field selectors filter within pages; every page holds at most limit items', async () => {
    await createNodes(
      Array.from({ length: 30 }, (_, i) => `n-${String(i).padStart(2, '0')}`),
      (n) => ({ tier: Number(n.slice(2)) % 3 === 0 ? 'gold' : 'lead' }),
    );
    const got = await pages(t, '/api/v1/nodes?limit=4&labelSelector=tier%3Dgold');
    for (const p of got) assert.ok(names(p).length <= 4);
    assert.deepEqual(got.flatMap(names), [
      'n-00',
      'n-03',
      'n-06',
      'n-09',
      'n-12',
      'n-15',
      'n-18',
      'n-21',
      'n-24',
      'n-27',
    ]);
    const one = await pages(t, '/api/v1/nodes?limit=3&fieldSelector=metadata.name%3Dn-29');
    assert.deepEqual(one.flatMap(names), ['n-29']);
  });

  it('limit: 0 or none is 500, above 10,000 is lowered to 10,000, malformed is 400', async () => {
    await Promise.all(
      Array.from({ length: 10_001 }, (_, i) => t.store.create('zones', zone(`z-${String(i).padStart(5, '0')}`))),
    );
    const clamped = (await call(t, 'GET', '/api/v1/zones?limit=20000')).body;
    assert.equal(names(clamped).length, 10_000);
    assert.equal(typeof token(clamped), 'string');
    assert.equal(names((await call(t, 'GET', '/api/v1/zones?limit=0')).body).length, 500);
    for (const bad of ['abc', '-1', '1.5', '1e3']) {
      const res = await call(t, 'GET', `/api/v1/zones?limit=${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(statusBodyOf(res).reason, 'BadRequest');
    }
  });

  it('a malformed, tampered or foreign continue token is 400 BadRequest', async () => {
    await createNodes(['a', 'b', 'c']);
    await t.server.registry.zones.create({ metadata: { name: 'z1' }, status: zoneStatus });
    await t.server.registry.zones.create({ metadata: { name: 'z2' }, status: zoneStatus });
    const first = (await call(t, 'GET', '/api/v1/nodes?limit=1')).body;
    const good = token(first)!;
    const body = JSON.parse(Buffer.from(good, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forge = (o: Record<string, unknown>): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const bad = {
      'not base64url': 'a+b/c=',
      'not JSON': Buffer.from('{nope').toString('base64url'),
      'another version': forge({ ...body, v: 2 }),
      'a revision in the future': forge({ ...body, rv: Number(body['rv']) + 1000 }),
      'revision 0': forge({ ...body, rv: 0 }),
      'no key': forge({ ...body, k: undefined }),
    };
    for (const [what, tok] of Object.entries(bad)) {
      const res = await call(t, 'GET', `/api/v1/nodes?limit=1&continue=${encodeURIComponent(tok)}`);
      assert.equal(res.status, 400, what);
      assert.equal(statusBodyOf(res).reason, 'BadRequest', what);
      assert.match(statusBodyOf(res).message, /start the list again without continue/, what);
    }
    const foreign = await call(t, 'GET', `/api/v1/zones?limit=1&continue=${good}`);
    assert.equal(foreign.status, 400, 'a nodes token on zones');
    assert.equal(statusBodyOf(foreign).reason, 'BadRequest');
  });

  it('a token for one lease namespace is refused on another', async () => {
    for (const n of ['a', 'b']) await call(t, 'POST', '/api/v1/leases', leaseBody(n));
    const first = (await call(t, 'GET', '/api/v1/leases?limit=1')).body;
    const res = await call(t, 'GET', `/api/v1/namespaces/shepherd-system/leases?limit=1&continue=${token(first)}`);
    assert.equal(res.status, 400);
    assert.deepEqual(names((await call(t, 'GET', `/api/v1/leases?limit=1&continue=${token(first)}`)).body), ['b']);
  });

  it('a token whose snapshot expired is 410 Gone with a Status saying to list again', async () => {
    await createNodes(['a', 'b', 'c']);
    const first = (await call(t, 'GET', '/api/v1/nodes?limit=1')).body;
    const b = (await call(t, 'GET', '/api/v1/nodes/b')).body;
    await call(t, 'PUT', '/api/v1/nodes/b', { ...b, spec: { unschedulable: true } });
    await (t.clock as FakeClock).advance(DEFAULT_LIST_SNAPSHOT_TTL_MS);
    const res = await call(t, 'GET', `/api/v1/nodes?limit=1&continue=${token(first)}`);
    assert.equal(res.status, 410);
    const status = statusBodyOf(res);
    assert.equal(status.reason, 'Gone');
    assert.match(status.message, /start the list again without continue/);
  });

  it('an empty store lists at a resourceVersion a watch replays from, never "0" (which means from now)', async () => {
    const empty = (await call(t, 'GET', '/api/v1/nodes')).body;
    const rv = empty['metadata'].resourceVersion as string;
    assert.notEqual(rv, '0');
    await call(t, 'POST', '/api/v1/nodes', nodeBody('gone-soon'));
    await call(t, 'DELETE', '/api/v1/nodes/gone-soon');
    await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.server.app.server.address();
    assert.ok(addr !== null && typeof addr === 'object');
    const ac = new AbortController();
    const res = await fetch(`http://127.0.0.1:${addr.port}/api/v1/nodes?watch=true&resourceVersion=${rv}`, {
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (text.split('\n').length < 3) text += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    const events = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as JsonObject);
    assert.deepEqual(
      events.map((e) => `${e['type']} ${e['object'].metadata.name}`),
      ['ADDED gone-soon', 'DELETED gone-soon'],
    );
  });
});

const zoneStatus = { state: 'Normal', nodes: 1, notReady: 0, evictionRate: 0.1 };
