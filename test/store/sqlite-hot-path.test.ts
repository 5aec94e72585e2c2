import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { NotFoundError } from '../../src/core/errors.js';
import { RecentObjects } from '../../src/store/sqlite/recent-objects.js';
import { lease, node, rv, touched } from './fixtures.js';
import { openTestStore } from './sqlite-harness.js';

describe('sqlite store hot paths', () => {
  it('written and read objects carry the exact JSON the store wrote; copies carry none', async () => {
    const t = await openTestStore();
    const l = await t.store.create('leases', lease('j'));
    assert.equal(t.store.encodedJson(l), JSON.stringify(l));
    const got = await t.store.get('leases', 'node-lease/j');
    assert.equal(t.store.encodedJson(got), JSON.stringify(got));
    assert.deepEqual(got, l);
    assert.equal(t.store.encodedJson({ ...got }), undefined);
    await t.cleanup();
  });

  it('get follows every committed write, including from a cold cache, and never hands out a shared object', async () => {
    for (const capacity of [0, 1, 20_000]) {
      const t = await openTestStore({ recentObjects: capacity });
      const a = await t.store.create('leases', lease('a'));
      await t.store.create('leases', lease('b')); // with capacity 1 this evicts "a"
      const a1 = await t.store.update('leases', touched(a, 1), a.metadata.resourceVersion);
      const got = await t.store.get('leases', 'node-lease/a');
      assert.equal(rv(got), rv(a1), `capacity ${capacity}`);
      assert.deepEqual(got, a1);
      got.spec.holderIdentity = 'changed by the caller';
      assert.equal((await t.store.get('leases', 'node-lease/a')).spec.holderIdentity, a1.spec.holderIdentity);
      await t.store.delete('leases', 'node-lease/a');
      await assert.rejects(t.store.get('leases', 'node-lease/a'), NotFoundError);
      const n = await t.store.create('nodes', node('a'));
      assert.equal(rv(await t.store.get('nodes', 'a')), rv(n), 'same key, other kind');
      await t.cleanup();
    }
  });

  it('caches the texts it wrote, never one it read: a read before a write leaves nothing to collect later', async () => {
    const t = await openTestStore({ recentObjects: 1 });
    const a = await t.store.create('leases', lease('a'));
    await t.store.create('leases', lease('b')); // capacity 1: "a" is no longer cached
    const outside = new Database(t.path);
    const edit = (key: string, holder: string): void => {
      outside
        .prepare("UPDATE objects SET value = json_set(value, '$.spec.holderIdentity', ?) WHERE key = ?")
        .run(holder, key);
    };
    try {
      const read = await t.store.get('leases', 'node-lease/a');
      assert.deepEqual(read, a);
      assert.equal(t.store.encodedJson(read), JSON.stringify(read), 'its text is built when asked for');
      // Edited behind the store's back (never done in use): which copy a get answers shows what is cached.
      edit('node-lease/a', 'edited');
      edit('node-lease/b', 'edited');
      assert.equal(
        (await t.store.get('leases', 'node-lease/a')).spec.holderIdentity,
        'edited',
        'the read was not kept',
      );
      assert.equal((await t.store.get('leases', 'node-lease/b')).spec.holderIdentity, 'b', 'the write still is');
    } finally {
      outside.close();
      await t.cleanup();
    }
  });

  it('a handed-over update reaches in-process watchers as the object the write returned; any other as its own copy', async () => {
    const t = await openTestStore();
    const a = await t.store.create('leases', lease('a'));
    const events = t.store.watch('leases', rv(a))[Symbol.asyncIterator]();
    try {
      // Asked for before the writes: the watch is live, not replaying the change log.
      const first = events.next();
      const handedOver = await t.store.update('leases', touched(a, 1), a.metadata.resourceVersion, { handOver: true });
      const seen = (await first).value;
      assert.equal(seen?.object, handedOver, 'the written object itself, not a parse of its JSON');
      assert.equal(t.store.encodedJson(seen.object), JSON.stringify(handedOver));
      const second = events.next();
      const plain = await t.store.update('leases', touched(handedOver, 2), handedOver.metadata.resourceVersion);
      const copy = (await second).value?.object;
      assert.notEqual(copy, plain, 'a caller that may still hold its object gets watchers a copy');
      assert.deepEqual(copy, plain);
    } finally {
      await events.return?.();
      await t.cleanup();
    }
  });

  it('a write refused in its batch leaves the cached object alone', async () => {
    const t = await openTestStore();
    const a = await t.store.create('leases', lease('a'));
    const [ok, stale] = await Promise.allSettled([
      t.store.update('leases', touched(a, 1), a.metadata.resourceVersion),
      t.store.update('leases', touched(a, 2), a.metadata.resourceVersion),
    ]);
    assert.equal(ok.status, 'fulfilled');
    assert.equal(stale.status, 'rejected');
    assert.deepEqual(await t.store.get('leases', 'node-lease/a'), ok.status === 'fulfilled' ? ok.value : undefined);
    await t.cleanup();
  });
});

describe('sqlite list of many objects', () => {
  it('parses in chunks yet stays one revision: a write made meanwhile is neither listed nor below it', async () => {
    const t = await openTestStore();
    await Promise.all(
      Array.from({ length: 4500 }, (_, i) => t.store.create('nodes', node(`n${String(i).padStart(4, '0')}`))),
    );
    let listed = false;
    const listing = t.store.list('nodes').then((r) => ((listed = true), r));
    const late = t.store.create('nodes', node('zz-late'));
    const created = await late;
    assert.equal(listed, false, 'the write committed while the list was still being parsed');
    const list = await listing;
    assert.equal(list.items.length, 4500);
    assert.equal(list.revision, 4501, 'the 4,500 creates after revision 1');
    assert.ok(rv(created) > list.revision);
    assert.deepEqual(
      list.items.map((n) => n.metadata.name),
      [...list.items.map((n) => n.metadata.name)].sort(),
    );
    await t.cleanup();
  });
});

describe('RecentObjects', () => {
  it('evicts the entry written longest ago and refreshes an entry on rewrite', () => {
    const r = new RecentObjects(2);
    r.set('leases', 'a', '1');
    r.set('leases', 'b', '2');
    r.set('leases', 'a', '3'); // a is now the newest
    r.set('leases', 'c', '4'); // evicts b
    assert.equal(r.get('leases', 'a'), '3');
    assert.equal(r.get('leases', 'b'), undefined);
    assert.equal(r.get('leases', 'c'), '4');
    assert.equal(r.get('nodes', 'c'), undefined);
    assert.equal(r.size, 2);
  });

  it('is bounded in bytes as well as entries: large values evict old ones, one larger than the budget is not kept', () => {
    const r = new RecentObjects<string>(1000, 100, (v) => v.length);
    r.set('nodes', 'a', 'a'.repeat(40));
    r.set('nodes', 'b', 'b'.repeat(40));
    r.set('nodes', 'c', 'c'.repeat(40)); // 120 > 100: evicts a
    assert.equal(r.get('nodes', 'a'), undefined);
    assert.equal(r.size, 2);
    assert.equal(r.bytes, 80);
    r.set('nodes', 'b', 'b'.repeat(10)); // a rewrite re-counts
    assert.equal(r.bytes, 50);
    r.set('nodes', 'huge', 'h'.repeat(101));
    assert.equal(r.get('nodes', 'huge'), undefined);
    assert.equal(r.bytes, 50);
    r.delete('nodes', 'c');
    assert.equal(r.bytes, 10);
  });

  it('keeps evicting the oldest through long churn: rewrites, deletes, and emptying it between', () => {
    const r = new RecentObjects<string>(3);
    const keys = (): string[] => ['a', 'b', 'c', 'd', 'e', 'f', 'g'].filter((k) => r.get('leases', k) !== undefined);
    r.set('leases', 'a', '1');
    r.set('leases', 'b', '1');
    r.set('leases', 'c', '1');
    r.set('leases', 'd', '1'); // evicts a
    r.set('leases', 'b', '2'); // b newest: c d b
    r.set('leases', 'e', '1'); // evicts c
    assert.deepEqual(keys(), ['b', 'd', 'e']);
    r.delete('leases', 'd'); // b e
    r.set('leases', 'f', '1'); // b e f
    r.set('leases', 'g', '1'); // evicts b
    assert.deepEqual(keys(), ['e', 'f', 'g']);
    for (const k of ['e', 'f', 'g']) r.delete('leases', k);
    for (const k of ['a', 'b', 'c', 'd']) r.set('leases', k, '9'); // evicts a
    assert.deepEqual(keys(), ['b', 'c', 'd']);
    // 20,000 hot keys through a 1,000-entry cache, several rounds: always the newest 1,000.
    const big = new RecentObjects<number>(1000);
    for (let round = 0; round < 5; round++) for (let i = 0; i < 20_000; i++) big.set('leases', `k${i}`, i);
    assert.equal(big.size, 1000);
    assert.equal(big.get('leases', 'k18999'), undefined);
    assert.equal(big.get('leases', 'k19000'), 19000);
    assert.equal(big.get('leases', 'k19999'), 19999);
  });

  it('matches a plain list model through random sets, rewrites, oversized values and deletes, over two resources', () => {
    let seed = 11;
    const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const r = new RecentObjects<string>(8, 60, (v) => v.length);
    const resources = ['leases', 'nodes'];
    // The same key under two resources is two entries sharing one bound.
    let model: Array<[string, string, string]> = []; // oldest first: resource, key, value
    const bytes = (): number => model.reduce((a, [, , v]) => a + v.length, 0);
    const other = ([res, k]: [string, string, string], resource: string, key: string): boolean =>
      res !== resource || k !== key;
    for (let i = 0; i < 5000; i++) {
      const resource = resources[rnd(2)] as string;
      const key = `k${rnd(12)}`;
      if (rnd(5) === 0) {
        r.delete(resource, key);
        model = model.filter((e) => other(e, resource, key));
      } else {
        const value = 'v'.repeat(rnd(70));
        r.set(resource, key, value);
        model = model.filter((e) => other(e, resource, key));
        if (value.length <= 60) model.push([resource, key, value]);
        while (model.length > 8 || bytes() > 60) model.shift();
      }
      assert.equal(r.size, model.length, `size after op ${i}`);
      assert.equal(r.bytes, bytes(), `bytes after op ${i}`);
    }
    for (const resource of resources) {
      for (let k = 0; k < 12; k++) {
        const want = model.find(([res, m]) => res === resource && m === `k${k}`)?.[2];
        assert.equal(r.get(resource, `k${k}`), want);
      }
    }
  });
});
