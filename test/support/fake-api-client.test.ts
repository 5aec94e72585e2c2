import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WatchEvent } from '../../src/client/api-client.js';
import {
  AlreadyExistsError,
  BadRequestError,
  ConflictError,
  GoneError,
  InvalidError,
  NotFoundError,
} from '../../src/core/errors.js';
import type { Node } from '../../src/core/node.js';
import type { Pod } from '../../src/core/pod.js';
import { FakeApiClient } from './fake-api-client.js';
import { flush } from './fake-clock.js';

const body = (name: string, labels: Record<string, string> = {}) =>
  ({ metadata: { name, labels }, spec: {}, status: { conditions: [] } }) as never;

async function take<T>(events: AsyncIterable<WatchEvent<T>>, n: number): Promise<string[]> {
  const out: string[] = [];
  if (n === 0) return out;
  for await (const ev of events) {
    const o = ev.object as { metadata: { name?: string; resourceVersion: string } };
    out.push(`${ev.type} ${o.metadata.name ?? ''}@${o.metadata.resourceVersion}`);
    if (out.length === n) break;
  }
  return out;
}

describe('FakeApiClient', () => {
  it('one revision across resources; optimistic locking; NotFound, AlreadyExists, Invalid', async () => {
    const c = new FakeApiClient({ now: () => 0 });
    const a = await c.nodes.create(body('a'));
    await c.leases().create({ metadata: { name: 'a' }, spec: {} } as never);
    assert.equal(a.metadata.resourceVersion, '2', 'a new server is at revision 1');
    assert.equal((await c.nodes.list()).metadata.resourceVersion, '3', 'a lease write moves the node list too');
    await assert.rejects(c.nodes.create(body('a')), AlreadyExistsError);
    const a2 = await c.nodes.update({ ...a, metadata: { ...a.metadata, labels: { x: 'y' } } });
    assert.equal(a2.metadata.resourceVersion, '4');
    await assert.rejects(c.nodes.update(a), ConflictError, 'a stale resourceVersion is a 409');
    await assert.rejects(c.nodes.update({ ...a2, metadata: { ...a2.metadata, resourceVersion: '' } }), InvalidError);
    await assert.rejects(c.nodes.get('b'), NotFoundError);
    assert.deepEqual(
      c.callsOf('nodes').map((x) => x.op),
      ['create', 'list', 'create', 'update', 'update', 'update', 'get'],
    );
  });

  it('watches see every write, replay history after their resourceVersion, and are Gone from before a compaction', async () => {
    const c = new FakeApiClient();
    c.put('nodes', body('a', { tier: 'web' }));
    c.put('nodes', body('b'));
    const ac = new AbortController();
    const web = c.nodes.watch({ resourceVersion: '0', labelSelector: 'tier=web', signal: ac.signal });
    const replay = c.nodes.watch({ resourceVersion: '2', signal: ac.signal });
    c.remove('nodes', 'a');
    assert.deepEqual(await take(web, 2), ['ADDED a@2', 'DELETED a@4']);
    assert.deepEqual(await take(replay, 2), ['ADDED b@3', 'DELETED a@4']);
    c.compact();
    const stale = c.nodes.watch({ resourceVersion: '3' });
    await assert.rejects(take(stale, 1), GoneError);
    ac.abort();
    await flush();
    assert.deepEqual(
      c.watches('nodes').map((f) => f.open),
      [false, false, false],
    );
  });

  it('scripted streams: push, bookmarks, end and fail; failNext and failAll', async () => {
    const c = new FakeApiClient({ revision: 40 });
    const w = c.nodes.watch({ resourceVersion: '40', allowWatchBookmarks: true });
    const feed = c.watches<Node>('nodes')[0]!;
    c.bookmark('nodes');
    feed.push({ type: 'ADDED', object: { metadata: { name: 'x', resourceVersion: '41' } } as Node });
    feed.end();
    c.put('nodes', body('late'));
    assert.deepEqual(await take(w, 3), ['BOOKMARK @40', 'ADDED x@41'], 'nothing after the end');
    c.failNext('nodes', 'get', new Error('once'));
    await assert.rejects(c.nodes.get('late'), /once/);
    assert.equal((await c.nodes.get('late')).metadata.name, 'late');
    c.failAll(new Error('down'));
    await assert.rejects(c.version(), /down/);
    await assert.rejects(take(c.nodes.watch({}), 1), /down/);
  });

  it('pods: the server rules on the fake clock, the call log with namespaces, and direct writes in `default`', async () => {
    let now = Date.parse('2026-11-29T12:00:00.000Z');
    const c = new FakeApiClient({ now: () => now, podAdmission: false });
    c.put('nodes', body('n1'));
    const spec = { containers: [{ name: 'c' }] };
    const created = await c.pods('ns').create({ metadata: { name: 'p' }, spec } as never);
    assert.equal(created.spec.tolerations, undefined, 'podAdmission: false adds no tolerations');
    assert.equal(created.spec.restartPolicy, 'Always');
    await c.pods('ns').bind('p', 'n1');
    now += 5_000;
    const marked = await c.pods('ns').delete('p');
    assert.equal(marked.metadata.deletionTimestamp, '2026-11-29T12:00:35.000Z');
    c.remove('nodes', 'n1');
    await c.pods('ns').delete('p');
    assert.equal(c.data.pods.size, 0, "the pod's node is gone: the second delete removes it");
    assert.deepEqual(
      c.callsOf('pods').map((x) => `${x.op} ${x.namespace}/${x.name}`),
      ['create ns/p', 'bind ns/p', 'delete ns/p', 'delete ns/p'],
    );
    const direct = c.put('pods', {
      metadata: { name: 'seeded' },
      spec,
      status: { phase: 'Running' },
    } as unknown as Pod);
    assert.equal(direct.metadata.namespace, 'default');
    assert.equal((await c.pods('default').get('seeded')).status.phase, 'Running');
    const ac = new AbortController();
    void c.pods('default').watch({ resourceVersion: String(c.revision), signal: ac.signal });
    assert.equal(c.watches('pods', 'default').length, 1);
    ac.abort();
  });

  it('pages lists as the server does: one revision for every page, 400 for a bad token, 410 once expired', async () => {
    const c = new FakeApiClient();
    for (const n of ['a', 'b', 'c', 'd', 'e']) c.put('nodes', body(n));
    const first = await c.nodes.list({ limit: 2 });
    assert.deepEqual(
      first.items.map((n) => n.metadata.name),
      ['a', 'b'],
    );
    c.remove('nodes', 'c');
    c.put('nodes', body('bb'));
    const second = await c.nodes.list({ limit: 2, continue: first.metadata.continue! });
    assert.deepEqual(
      second.items.map((n) => n.metadata.name),
      ['c', 'd'],
      'the list as it was at the first page',
    );
    assert.equal(second.metadata.resourceVersion, first.metadata.resourceVersion);
    c.expireLists();
    await assert.rejects(c.nodes.list({ limit: 2, continue: second.metadata.continue! }), GoneError);
    await assert.rejects(c.nodes.list({ limit: 2, continue: 'garbage' }), BadRequestError);
    const all = await c.nodes.list();
    assert.deepEqual(
      all.items.map((n) => n.metadata.name),
      ['a', 'b', 'bb', 'd', 'e'],
    );
    assert.deepEqual(
      c.callsOf('nodes', 'list').map((x) => [x.limit, x.continue]),
      [
        [2, undefined],
        [2, first.metadata.continue],
        [2, second.metadata.continue],
        [2, 'garbage'],
        [500, undefined],
      ],
    );
  });
});
