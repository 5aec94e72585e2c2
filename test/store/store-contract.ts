import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../src/core/errors.js';
import type { Store } from '../../src/store/store.js';
import { deployment, event, lease, nextWithin, node, pod, rv, touched, verdict, zone } from './fixtures.js';
import { pagingContract } from './store-contract-paging.js';
import { watchContract } from './store-contract-watch.js';

/** What a backend hands the contract: a fresh, empty store and the hooks only a backend can provide. */
export interface ContractBackend {
  store: Store;
  cleanup(): Promise<void>;
  /** Compacts every change up to the current revision (the Gone tests need it; they are left out without it). */
  compact?: () => Promise<void>;
  /** Moves the store's clock forward; without it the bookmark test waits in real time. */
  advance?: (ms: number) => Promise<void>;
  /** Makes every list's revision older than a later page can be read at (SQLite: snapshot TTL; etcd: compaction). */
  expireLists: () => Promise<void>;
}

export type BackendFactory = () => Promise<ContractBackend>;

/**
 * The one store contract every backend runs (as kysely runs each test against every dialect). It only uses
 * the Store interface and the factory's hooks, never backend internals.
 */
export function runStoreContract(name: string, factory: BackendFactory): void {
  describe(`store contract: ${name}`, () => {
    const ctx = { backend: undefined as ContractBackend | undefined };
    const store = (): Store => {
      assert.ok(ctx.backend, 'backend not opened');
      return ctx.backend.store;
    };
    beforeEach(async () => {
      ctx.backend = await factory();
    });
    afterEach(async () => {
      await ctx.backend?.cleanup();
      ctx.backend = undefined;
    });
    crudContract(store);
    revisionContract(store);
    workloadContract(store);
    watchContract(() => {
      assert.ok(ctx.backend, 'backend not opened');
      return ctx.backend;
    });
    pagingContract(() => {
      assert.ok(ctx.backend, 'backend not opened');
      return ctx.backend;
    });
  });
}

function crudContract(store: () => Store): void {
  it('knows the JSON text of every object it hands out (create, update, get, list, delete), and of no copy', async () => {
    const s = store();
    const created = await s.create('leases', lease('j'));
    const updated = await s.update('leases', touched(created, 1), created.metadata.resourceVersion);
    const got = await s.get('leases', 'node-lease/j');
    const listed = (await s.list('leases')).items[0];
    const deleted = await s.delete('leases', 'node-lease/j');
    const handedOut = { create: created, update: updated, get: got, list: listed, delete: deleted };
    for (const [op, obj] of Object.entries(handedOut)) {
      assert.ok(obj, op);
      assert.equal(s.encodedJson(obj), JSON.stringify(obj), op);
      assert.equal(s.encodedJson(obj), JSON.stringify(obj), `${op}, asked again`);
    }
    assert.equal(s.encodedJson({ ...got }), undefined, 'a copy is not the store object');
    assert.equal(s.encodedJson(lease('j')), undefined, 'nor is an object the store never saw');
  });

  it('create stores the object as given, adding only a decimal resourceVersion; get returns it', async () => {
    const input = node('node-1', { 'topology.kubernetes.io/zone': 'a' });
    const created = await store().create('nodes', input);
    assert.match(created.metadata.resourceVersion, /^[1-9]\d*$/);
    assert.deepEqual(created, {
      ...input,
      metadata: { ...input.metadata, resourceVersion: created.metadata.resourceVersion },
    });
    assert.deepEqual(await store().get('nodes', 'node-1'), created);
    assert.equal(input.metadata.resourceVersion, '', 'the input object is not modified');
  });

  it('get of a missing object is NotFound', async () => {
    await assert.rejects(store().get('nodes', 'nope'), NotFoundError);
    await store().create('nodes', node('x'));
    await assert.rejects(store().get('zones', 'x'), NotFoundError, 'kinds do not share keys');
  });

  it('create of an existing key is AlreadyExists and writes nothing', async () => {
    const first = await store().create('zones', zone('a'));
    const before = await store().currentRevision();
    await assert.rejects(store().create('zones', touched(zone('a'), 1)), AlreadyExistsError);
    assert.equal(await store().currentRevision(), before);
    assert.deepEqual(await store().get('zones', 'a'), first);
  });

  it('update needs the current resourceVersion: stale is Conflict, absent is NotFound, neither writes', async () => {
    const v1 = await store().create('nodes', node('n'));
    const v2 = await store().update('nodes', touched(v1, 2), v1.metadata.resourceVersion);
    assert.ok(rv(v2) > rv(v1));
    assert.equal(v2.metadata.annotations?.['test/n'], '2');
    assert.deepEqual(await store().get('nodes', 'n'), v2);
    const before = await store().currentRevision();
    await assert.rejects(store().update('nodes', touched(v1, 3), v1.metadata.resourceVersion), ConflictError);
    await assert.rejects(store().update('nodes', node('ghost'), '1'), NotFoundError);
    assert.equal(await store().currentRevision(), before);
    assert.deepEqual(await store().get('nodes', 'n'), v2);
  });

  it('delete returns the last state carrying the deletion revision; preconditions are checked', async () => {
    const l = await store().create('leases', lease('n1'));
    const l2 = await store().update('leases', touched(l, 1), l.metadata.resourceVersion);
    await assert.rejects(
      store().delete('leases', 'node-lease/n1', { expectedResourceVersion: l.metadata.resourceVersion }),
      ConflictError,
    );
    await store().create('nodes', node('other'));
    const gone = await store().delete('leases', 'node-lease/n1', {
      expectedResourceVersion: l2.metadata.resourceVersion,
    });
    assert.ok(rv(gone) > rv(l2));
    assert.equal(rv(gone), await store().currentRevision());
    assert.deepEqual(gone.spec, l2.spec);
    assert.equal(gone.metadata.annotations?.['test/n'], '1');
    await assert.rejects(store().get('leases', 'node-lease/n1'), NotFoundError);
    await assert.rejects(store().delete('leases', 'node-lease/n1'), NotFoundError);
    const z = await store().create('zones', zone('z'));
    const zGone = await store().delete('zones', 'z');
    assert.ok(rv(zGone) > rv(z), 'delete without a precondition works too');
  });

  it('list is sorted by key, read at one revision, and a prefix limits the keys', async () => {
    for (const n of ['c', 'a', 'b']) await store().create('nodes', node(n));
    await store().create('leases', lease('b'));
    await store().create('leases', lease('a'));
    await store().create('leases', lease('leader', 'shepherd-system'));
    const nodes = await store().list('nodes');
    assert.deepEqual(
      nodes.items.map((n) => n.metadata.name),
      ['a', 'b', 'c'],
    );
    assert.equal(nodes.revision, await store().currentRevision());
    const nodeLeases = await store().list('leases', { prefix: 'node-lease/' });
    assert.deepEqual(
      nodeLeases.items.map((l) => l.metadata.name),
      ['a', 'b'],
    );
    const all = await store().list('leases');
    assert.deepEqual(
      all.items.map((l) => `${l.metadata.namespace}/${l.metadata.name}`),
      ['node-lease/a', 'node-lease/b', 'shepherd-system/leader'],
    );
    assert.deepEqual((await store().list('events')).items, []);
  });

  it('concurrent updates with the same expected resourceVersion: exactly one wins, the other conflicts', async () => {
    const l = await store().create('leases', lease('n1'));
    const results = await Promise.allSettled([
      store().update('leases', touched(l, 1), l.metadata.resourceVersion),
      store().update('leases', touched(l, 2), l.metadata.resourceVersion),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    assert.ok(lost[0]?.reason instanceof ConflictError);
    assert.deepEqual(await store().get('leases', 'node-lease/n1'), won[0]?.value);
  });
}

function revisionContract(store: () => Store): void {
  it('revisions strictly increase across kinds; currentRevision is the newest write', async () => {
    const start = await store().currentRevision();
    const seen: number[] = [];
    seen.push(rv(await store().create('nodes', node('a'))));
    seen.push(rv(await store().create('leases', lease('a'))));
    seen.push(rv(await store().create('events', event('a'))));
    seen.push(rv(await store().create('zones', zone('a'))));
    const n = await store().get('nodes', 'a');
    seen.push(rv(await store().update('nodes', touched(n, 1), n.metadata.resourceVersion)));
    seen.push(rv(await store().delete('events', 'a')));
    assert.ok(seen[0]! > start);
    for (let i = 1; i < seen.length; i++)
      assert.ok(seen[i]! > seen[i - 1]!, `revision ${seen[i]} after ${seen[i - 1]}`);
    assert.equal(await store().currentRevision(), seen.at(-1));
  });

  it('concurrent writes each get their own result and a distinct revision', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `n-${String(i).padStart(2, '0')}`);
    const created = await Promise.all(names.map((n) => store().create('nodes', node(n))));
    assert.deepEqual(
      created.map((c) => c.metadata.name),
      names,
    );
    assert.equal(new Set(created.map(rv)).size, names.length);
    for (const c of created) assert.deepEqual(await store().get('nodes', c.metadata.name), c);
    assert.equal(await store().currentRevision(), Math.max(...created.map(rv)));
  });

  it('compactedRevision never exceeds currentRevision', async () => {
    await store().create('nodes', node('a'));
    assert.ok((await store().compactedRevision()) <= (await store().currentRevision()));
  });
}

function workloadContract(store: () => Store): void {
  it('pods and deployments are keyed namespace/name, verdicts by name; each kind lists and watches only itself', async () => {
    const s = store();
    const start = await s.currentRevision();
    const a = await s.create('pods', pod('web-1', 'team-a'));
    await s.create('pods', pod('web-1', 'team-b', 'n1'));
    await s.create('deployments', deployment('web-1', 'team-a'));
    const v = await s.create('verdicts', verdict('n1.0001', 'n1'));
    assert.deepEqual(await s.get('pods', 'team-a/web-1'), a);
    assert.deepEqual(await s.get('verdicts', 'n1.0001'), v);
    await assert.rejects(s.get('deployments', 'team-b/web-1'), NotFoundError);
    assert.deepEqual(
      (await s.list('pods')).items.map((p) => `${p.metadata.namespace}/${p.metadata.name} ${p.spec.nodeName ?? '-'}`),
      ['team-a/web-1 -', 'team-b/web-1 n1'],
    );
    assert.deepEqual(
      (await s.list('pods', { prefix: 'team-b/' })).items.map((p) => p.metadata.namespace),
      ['team-b'],
    );
    const marked = await s.update(
      'pods',
      {
        ...a,
        metadata: { ...a.metadata, deletionTimestamp: '2026-11-29T12:00:30.000Z', deletionGracePeriodSeconds: 30 },
      },
      a.metadata.resourceVersion,
    );
    const gone = await s.delete('pods', 'team-a/web-1', { expectedResourceVersion: marked.metadata.resourceVersion });
    assert.equal(gone.metadata.deletionGracePeriodSeconds, 30);
    const it = s.watch('pods', start)[Symbol.asyncIterator]();
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const ev = (await nextWithin(it)).value as { type: string; object: { metadata: { namespace: string } } };
      seen.push(`${ev.type} ${ev.object.metadata.namespace}`);
    }
    await it.return?.();
    assert.deepEqual(seen, ['ADDED team-a', 'ADDED team-b', 'MODIFIED team-a', 'DELETED team-a']);
  });
}
