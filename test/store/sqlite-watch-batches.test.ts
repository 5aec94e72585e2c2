import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventBatches } from '../../src/store/event-batches.js';
import type { StoreEvent } from '../../src/store/store.js';
import { lease, nextWithin, node, rv } from './fixtures.js';
import { openTestStore } from './sqlite-harness.js';

const revisions = (batch: StoreEvent<unknown>[]): number[] => batch.map((e) => e.revision);

describe('sqlite watch batch path', () => {
  it('hands a replay chunk, then each group commit, to a watcher as one array each', async () => {
    const t = await openTestStore();
    try {
      const first = await Promise.all(['a', 'b', 'c'].map((n) => t.store.create('nodes', node(n))));
      const from = rv(first[0]!) - 1;
      const batches = eventBatches(t.store.watch('nodes', from))[Symbol.asyncIterator]();
      assert.deepEqual(revisions((await nextWithin(batches)).value), first.map(rv));
      // One group commit (writes queued in the same turn), other kinds mixed in: one array of this kind's changes.
      const pending = nextWithin(batches);
      const second = await Promise.all([
        t.store.create('nodes', node('d')),
        t.store.create('leases', lease('d')),
        t.store.create('nodes', node('e')),
      ]);
      assert.deepEqual(revisions((await pending).value), [rv(second[0]), rv(second[2])]);
      await batches.return?.(undefined);
    } finally {
      await t.cleanup();
    }
  });

  it('a watcher that leaves more than its queue bound untaken is ended with the too-slow error (429)', async () => {
    const t = await openTestStore({ watchQueueCapacity: 4 });
    try {
      const from = await t.store.currentRevision();
      const batches = eventBatches(t.store.watch('nodes', from))[Symbol.asyncIterator]();
      const pending = nextWithin(batches);
      const a = await Promise.all(['a', 'b', 'c'].map((n) => t.store.create('nodes', node(n))));
      assert.deepEqual(revisions((await pending).value), a.map(rv));
      // Not pulling: the next commit waits queued, the one after it passes the bound of 4.
      await Promise.all(['d', 'e', 'f'].map((n) => t.store.create('nodes', node(n))));
      await Promise.all(['g', 'h'].map((n) => t.store.create('nodes', node(n))));
      await assert.rejects(nextWithin(batches), (err: unknown) => (err as { code?: number }).code === 429);
    } finally {
      await t.cleanup();
    }
  });
});
