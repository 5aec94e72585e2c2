import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BadRequestError, GoneError } from '../../src/core/errors.js';
import type { Resource, ResourceTypes } from '../../src/core/kinds.js';
import type { ListOptions, ListResult, Store } from '../../src/store/store.js';
import { collectUntil, lease, node, rv, touched, zone } from './fixtures.js';
import type { ContractBackend } from './store-contract.js';

const names = (items: { metadata: { name: string } }[]): string[] => items.map((o) => o.metadata.name);

/** Every page of a list from the first, with `between` run after each page that has a next one. */
async function allPages<R extends Resource>(
  store: Store,
  resource: R,
  options: Omit<ListOptions, 'continueFrom'>,
  between: (page: number) => Promise<void> = async () => {},
): Promise<ListResult<ResourceTypes[R]>[]> {
  const pages = [await store.list(resource, options)];
  for (let page = pages[0]; page?.continueFrom !== undefined;) {
    await between(pages.length);
    page = await store.list(resource, { ...options, continueFrom: page.continueFrom });
    pages.push(page);
  }
  return pages;
}

/** Paged lists (docs/api.md#paging); called by runStoreContract inside its describe(). */
export function pagingContract(backend: () => ContractBackend): void {
  const store = (): Store => backend().store;

  it('a never-written store is at a revision a watch can start from: its list revision is at least 1', async () => {
    const empty = await store().list('nodes');
    assert.ok(empty.revision >= 1, `revision ${empty.revision}`);
    assert.equal(empty.revision, await store().currentRevision());
    const a = await store().create('nodes', node('a'));
    assert.ok(rv(a) > empty.revision);
    const gone = await store().delete('nodes', 'a');
    // Revision 0 would mean "from now" to the API; from the list's revision the watch replays what followed.
    const it = store().watch('nodes', empty.revision)[Symbol.asyncIterator]();
    const got = await collectUntil(it, rv(gone));
    await it.return?.();
    assert.deepEqual(
      got.map((e) => [e.type, e.revision]),
      [
        ['ADDED', rv(a)],
        ['DELETED', rv(gone)],
      ],
    );
  });

  it('pages cover the list once, in key order, at the first page revision, whatever is written between them', async () => {
    const created: ResourceTypes['nodes'][] = [];
    for (const n of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) created.push(await store().create('nodes', node(n)));
    const before = await store().list('nodes');
    let written = 0;
    const pages = await allPages(store(), 'nodes', { limit: 2 }, async (page) => {
      if (page !== 1) return;
      // After the first page (a, b): change what is behind and ahead of it, and another kind.
      const b = created[1]!;
      const e = created[4]!;
      await store().update('nodes', touched(b, 1), b.metadata.resourceVersion);
      await store().update('nodes', touched(e, 1), e.metadata.resourceVersion);
      await store().delete('nodes', 'c');
      await store().create('nodes', node('cc'));
      await store().create('nodes', node('h'));
      await store().create('leases', lease('x'));
      written = await store().currentRevision();
    });
    assert.ok(written > before.revision);
    assert.deepEqual(
      pages.map((p) => names(p.items)),
      [['a', 'b'], ['c', 'd'], ['e', 'f'], ['g']],
    );
    assert.deepEqual(
      pages.flatMap((p) => p.items),
      before.items,
      'the objects as they were',
    );
    for (const p of pages) assert.equal(p.revision, before.revision);
    assert.equal(pages.at(-1)?.continueFrom, undefined);
    const after = await store().list('nodes');
    assert.deepEqual(names(after.items), ['a', 'b', 'cc', 'd', 'e', 'f', 'g', 'h'], 'a new list sees the writes');
  });

  it('limit 1 gives one item a page; a limit equal to the count gives one page and no continuation', async () => {
    for (const n of ['c', 'a', 'b']) await store().create('zones', zone(n));
    const ones = await allPages(store(), 'zones', { limit: 1 });
    assert.deepEqual(
      ones.map((p) => names(p.items)),
      [['a'], ['b'], ['c']],
    );
    const exact = await store().list('zones', { limit: 3 });
    assert.deepEqual(names(exact.items), ['a', 'b', 'c']);
    assert.equal(exact.continueFrom, undefined);
    const larger = await store().list('zones', { limit: 500 });
    assert.equal(larger.items.length, 3);
    assert.equal(larger.continueFrom, undefined);
  });

  it('an empty kind is one empty page at the current revision', async () => {
    await store().create('nodes', node('a'));
    const page = await store().list('events', { limit: 10 });
    assert.deepEqual(page.items, []);
    assert.equal(page.continueFrom, undefined);
    assert.equal(page.revision, await store().currentRevision());
  });

  it('paging with a prefix stays inside the prefix', async () => {
    for (const n of ['a', 'b', 'c']) await store().create('leases', lease(n));
    for (const n of ['a', 'z']) await store().create('leases', lease(n, 'shepherd-system'));
    await store().create('leases', lease('zz', 'other'));
    const pages = await allPages(store(), 'leases', { prefix: 'node-lease/', limit: 2 }, async () => {
      await store().create('leases', lease('aa', 'shepherd-system'));
    });
    assert.deepEqual(
      pages.map((p) => p.items.map((l) => `${l.metadata.namespace}/${l.metadata.name}`)),
      [['node-lease/a', 'node-lease/b'], ['node-lease/c']],
    );
    const system = await allPages(store(), 'leases', { prefix: 'shepherd-system/', limit: 1 });
    assert.deepEqual(
      system.map((p) => names(p.items)),
      [['a'], ['aa'], ['z']],
    );
  });

  it('a continuation the store cannot have handed out (a future or zero revision) is BadRequest', async () => {
    await store().create('nodes', node('a'));
    await store().create('nodes', node('b'));
    const first = await store().list('nodes', { limit: 1 });
    assert.ok(first.continueFrom);
    const future = { key: first.continueFrom.key, revision: (await store().currentRevision()) + 1000 };
    await assert.rejects(store().list('nodes', { limit: 1, continueFrom: future }), BadRequestError);
    const zero = { key: first.continueFrom.key, revision: 0 };
    await assert.rejects(store().list('nodes', { limit: 1, continueFrom: zero }), BadRequestError);
  });

  it('a later page whose revision can no longer be read is Gone', async () => {
    const expire = backend().expireLists;
    for (const n of ['a', 'b', 'c']) await store().create('nodes', node(n));
    const first = await store().list('nodes', { limit: 1 });
    assert.ok(first.continueFrom);
    const b = await store().get('nodes', 'b');
    await store().update('nodes', touched(b, 1), b.metadata.resourceVersion);
    await expire();
    await assert.rejects(store().list('nodes', { limit: 1, continueFrom: first.continueFrom }), GoneError);
    const again = await allPages(store(), 'nodes', { limit: 1 });
    assert.deepEqual(
      again.map((p) => names(p.items)),
      [['a'], ['b'], ['c']],
      'a new list works',
    );
  });

  it('page after page read in-process lets the event loop turn between pages', async () => {
    await Promise.all(Array.from({ length: 300 }, (_, i) => store().create('nodes', node(`n${i}`))));
    let turns = 0;
    let done = false;
    const tick = (): void => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const pages = await allPages(store(), 'nodes', { limit: 20 });
    done = true;
    assert.equal(pages.length, 15);
    assert.ok(turns >= pages.length - 1, `${turns} turns of the event loop over ${pages.length} pages`);
  });
}
