import assert from 'node:assert/strict';
import { it } from 'node:test';
import { GoneError } from '../../src/core/errors.js';
import type { Node } from '../../src/core/node.js';
import type { Store } from '../../src/store/store.js';
import { collectUntil, event, lease, nextWithin, node, rv, touched, zone } from './fixtures.js';
import type { ContractBackend } from './store-contract.js';

/** Watch guarantees of the store contract; called by runStoreContract inside its describe(). */
export function watchContract(backend: () => ContractBackend): void {
  const store = (): Store => backend().store;

  it('watch from a revision replays every later change of that kind, in order, with its type', async () => {
    const a = await store().create('nodes', node('a'));
    const from = rv(a);
    await store().create('leases', lease('a'));
    const b = await store().create('nodes', node('b'));
    const a2 = await store().update('nodes', touched(a, 1), a.metadata.resourceVersion);
    await store().create('zones', zone('z'));
    const bGone = await store().delete('nodes', 'b');
    const it = store().watch('nodes', from)[Symbol.asyncIterator]();
    const got = await collectUntil(it, rv(bGone));
    await it.return?.();
    assert.deepEqual(
      got.map((e) => [e.type, e.revision]),
      [
        ['ADDED', rv(b)],
        ['MODIFIED', rv(a2)],
        ['DELETED', rv(bGone)],
      ],
    );
    const objects = got.map((e) => (e.type === 'BOOKMARK' ? undefined : e.object));
    assert.deepEqual(objects, [b, a2, bGone]);
  });

  it('knows the JSON text of every object a watch yields, replayed or live', async () => {
    const a = await store().create('nodes', node('a'));
    const aGone = await store().delete('nodes', 'a');
    const from = rv(a) - 1;
    const it = store().watch('nodes', from)[Symbol.asyncIterator]();
    const replayed = await collectUntil(it, rv(aGone));
    const b = await store().create('nodes', node('b'));
    const live = await collectUntil(it, rv(b));
    await it.return?.();
    const objects = [...replayed, ...live].flatMap((e) => (e.type === 'BOOKMARK' ? [] : [e.object]));
    assert.deepEqual(
      objects.map((o) => o.metadata.name),
      ['a', 'a', 'b'],
    );
    for (const o of objects) assert.equal(store().encodedJson(o), JSON.stringify(o), o.metadata.resourceVersion);
  });

  it(
    'replay then live: no change skipped or repeated while writes run during the hand-over',
    { timeout: 60_000 },
    async () => {
      // Enough history that the replay takes several steps, and a consumer that gives the writer a turn after
      // every event, so commits land before, during and after the replay.
      const names = Array.from({ length: 600 }, (_, i) => `n${String(i).padStart(3, '0')}`);
      const nodes = new Map<string, Node>();
      for (let i = 0; i < names.length; i += 100) {
        const made = await Promise.all(names.slice(i, i + 100).map((n) => store().create('nodes', node(n))));
        made.forEach((m) => nodes.set(m.metadata.name, m));
      }
      const from = rv(nodes.get('n049')!);
      const expected = [...nodes.values()].map(rv).filter((r) => r > from);
      const it = store().watch('nodes', from)[Symbol.asyncIterator]();
      const consumer = (async () => {
        const seen: number[] = [];
        for (;;) {
          const r = await nextWithin(it);
          if (r.done) return seen;
          seen.push(r.value.revision);
          if (r.value.type !== 'BOOKMARK' && r.value.object.metadata.name === 'zz-end') return seen;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      for (let round = 0; round < 30; round++) {
        // Spread the writes over the replay and beyond it (the consumer takes one turn per event).
        for (let turn = 0; turn < 30; turn++) await new Promise((resolve) => setImmediate(resolve));
        const some = names.slice(round * 7, round * 7 + 20);
        const written = await Promise.all(
          some.map((n) =>
            store().update('nodes', touched(nodes.get(n)!, round), nodes.get(n)!.metadata.resourceVersion),
          ),
        );
        written.forEach((w) => nodes.set(w.metadata.name, w));
        expected.push(...written.map(rv));
        await store().create('events', event(`e${round}`));
      }
      expected.push(rv(await store().create('nodes', node('zz-end'))));
      const seen = await consumer;
      await it.return?.();
      assert.deepEqual(
        seen,
        [...expected].sort((x, y) => x - y),
      );
    },
  );

  it('watch from the current revision sees only later changes; from 0 sees every change', async () => {
    await store().create('zones', zone('old'));
    const now = await store().currentRevision();
    const it = store().watch('zones', now)[Symbol.asyncIterator]();
    const pending = nextWithin(it);
    const z = await store().create('zones', zone('new'));
    const r = await pending;
    await it.return?.();
    assert.equal(r.done, false);
    assert.deepEqual(r.value, { type: 'ADDED', object: z, revision: rv(z) });
    if ((await store().compactedRevision()) === 0) {
      const all = store().watch('zones', 0)[Symbol.asyncIterator]();
      const got = await collectUntil(all, rv(z));
      await all.return?.();
      assert.deepEqual(
        got.map((e) => (e.type === 'BOOKMARK' ? '' : e.object.metadata.name)),
        ['old', 'new'],
      );
    }
  });

  it(
    'bookmarks carry the newest revision (other kinds included) once the watch is idle',
    { timeout: 30_000 },
    async () => {
      const { advance } = backend();
      const interval = advance ? 1000 : 200;
      const n = await store().create('nodes', node('a'));
      const ac = new AbortController();
      const stream = store().watch('nodes', rv(n) - 1, { signal: ac.signal, progressIntervalMs: interval });
      const it = stream[Symbol.asyncIterator]();
      assert.equal((await nextWithin(it)).value?.revision, rv(n));
      const l = await store().create('leases', lease('a'));
      const pending = nextWithin(it);
      if (advance) await advance(interval);
      const bm = await pending;
      assert.deepEqual(bm.value, { type: 'BOOKMARK', revision: rv(l) });
      ac.abort();
      assert.equal((await nextWithin(it)).done, true);
    },
  );

  it('aborting the signal ends the watch cleanly', async () => {
    const ac = new AbortController();
    const stream = store().watch('nodes', await store().currentRevision(), { signal: ac.signal });
    const it = stream[Symbol.asyncIterator]();
    const pending = nextWithin(it);
    ac.abort();
    assert.deepEqual(await pending, { done: true, value: undefined });
  });

  it('close ends every watch and commits writes still pending', async () => {
    const from = await store().currentRevision();
    const w1 = store().watch('nodes', from)[Symbol.asyncIterator]();
    const w2 = store().watch('leases', from)[Symbol.asyncIterator]();
    const p1 = nextWithin(w1);
    const p2 = nextWithin(w2);
    await new Promise((r) => setImmediate(r)); // both watches are now waiting for live events
    const write = store().create('zones', zone('late'));
    await store().close();
    assert.deepEqual(await p1, { done: true, value: undefined });
    assert.deepEqual(await p2, { done: true, value: undefined });
    assert.equal((await write).metadata.name, 'late');
  });

  it('Gone: a watch from before the compacted revision fails; from the compacted revision it works', async (t) => {
    const { compact } = backend();
    if (!compact) {
      t.diagnostic('backend gave no compact hook: Gone is covered by its own tests');
      return;
    }
    const a = await store().create('nodes', node('a'));
    await store().update('nodes', touched(a, 1), a.metadata.resourceVersion);
    await compact();
    const oldest = await store().compactedRevision();
    assert.ok(oldest > rv(a) && oldest <= (await store().currentRevision()));
    const staleStream = store().watch('nodes', rv(a) - 1);
    const stale = staleStream[Symbol.asyncIterator]();
    await assert.rejects(
      nextWithin(stale),
      (err: unknown) => err instanceof GoneError && err.reason === 'Gone' && err.code === 410,
    );
    const ok = store().watch('nodes', oldest)[Symbol.asyncIterator]();
    const pending = nextWithin(ok);
    const b = await store().create('nodes', node('b'));
    assert.equal((await pending).value?.revision, rv(b));
    await ok.return?.();
  });
}
