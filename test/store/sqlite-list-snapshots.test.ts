import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GoneError } from '../../src/core/errors.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ListContinuation } from '../../src/store/store.js';
import { lease, node, touched } from './fixtures.js';
import { openTestStore, type TestStore } from './sqlite-harness.js';

async function seed(t: TestStore, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, i) => t.store.create('nodes', node(`n${i}`))));
}

/** Writes a node, so the next page of a node list needs its snapshot. */
async function touchNode(t: TestStore, name: string): Promise<void> {
  const cur = await t.store.get('nodes', name);
  await t.store.update('nodes', touched(cur, Number(cur.metadata.resourceVersion)), cur.metadata.resourceVersion);
}

async function firstPage(t: TestStore): Promise<ListContinuation> {
  const page = await t.store.list('nodes', { limit: 1 });
  assert.ok(page.continueFrom);
  return page.continueFrom;
}

describe('sqlite list snapshots', () => {
  it('a list holds a snapshot until its last page', async () => {
    const t = await openTestStore();
    try {
      await seed(t, 3);
      let page = await t.store.list('nodes', { limit: 2 });
      assert.equal(t.store.openListSnapshots, 1);
      await touchNode(t, 'n2');
      page = await t.store.list('nodes', { limit: 2, continueFrom: page.continueFrom! });
      assert.equal(page.continueFrom, undefined);
      assert.equal(t.store.openListSnapshots, 0);
      assert.equal((await t.store.list('nodes', { limit: 3 })).continueFrom, undefined);
      assert.equal(t.store.openListSnapshots, 0, 'a list that fits one page takes none');
    } finally {
      await t.cleanup();
    }
  });

  it('expires after its TTL without a page; a page within it keeps it', async () => {
    const t = await openTestStore({ listSnapshotTtlMs: 60_000, compactionIntervalMs: 3_600_000 });
    try {
      await seed(t, 3);
      const first = await firstPage(t);
      await touchNode(t, 'n1');
      await t.clock.advance(59_000);
      const second = await t.store.list('nodes', { limit: 1, continueFrom: first });
      assert.equal(second.items[0]?.metadata.annotations, undefined, 'n1 as it was at the first page');
      await t.clock.advance(60_000);
      await assert.rejects(t.store.list('nodes', { limit: 1, continueFrom: second.continueFrom! }), (err) => {
        assert.ok(err instanceof GoneError);
        assert.match(err.message, /start the list again without continue/);
        return true;
      });
      assert.equal(t.store.openListSnapshots, 0);
    } finally {
      await t.cleanup();
    }
  });

  it('a page of a kind nothing wrote since the first page needs no snapshot, even after it expired', async () => {
    const t = await openTestStore({ listSnapshotTtlMs: 1_000 });
    try {
      await seed(t, 2);
      const first = await firstPage(t);
      await t.store.create('leases', lease('other-kind'));
      await t.clock.advance(5_000);
      assert.equal(t.store.openListSnapshots, 0);
      const second = await t.store.list('nodes', { limit: 1, continueFrom: first });
      assert.deepEqual(
        second.items.map((n) => n.metadata.name),
        ['n1'],
      );
    } finally {
      await t.cleanup();
    }
  });

  it('holds at most maxListSnapshots; lists at one revision share one; the least recently used goes first', async () => {
    const t = await openTestStore({ maxListSnapshots: 2 });
    try {
      await seed(t, 3);
      const a = await firstPage(t);
      const aTwin = await firstPage(t);
      assert.equal(t.store.openListSnapshots, 1, 'same revision, one snapshot');
      await touchNode(t, 'n2');
      const b = await firstPage(t);
      await touchNode(t, 'n2');
      await t.store.list('nodes', { limit: 1, continueFrom: a });
      const c = await firstPage(t);
      await touchNode(t, 'n2');
      assert.equal(t.store.openListSnapshots, 2);
      await assert.rejects(t.store.list('nodes', { limit: 1, continueFrom: b }), GoneError, 'b was least recent');
      assert.equal((await t.store.list('nodes', { limit: 1, continueFrom: aTwin })).items.length, 1);
      assert.equal((await t.store.list('nodes', { limit: 1, continueFrom: c })).items.length, 1);
    } finally {
      await t.cleanup();
    }
  });

  it('an open snapshot does not make the compaction pass wait for it (checkpoint PASSIVE)', async () => {
    const t = await openTestStore();
    try {
      await seed(t, 3);
      await firstPage(t);
      for (let i = 0; i < 20; i++) await touchNode(t, 'n1');
      const started = performance.now();
      await t.clock.advance(1_000);
      await t.clock.advance(1_000);
      const ms = performance.now() - started;
      // A TRUNCATE checkpoint waits busy_timeout (5 s) for the snapshot's reader, on the event loop.
      assert.ok(ms < 2_000, `two compaction passes took ${Math.round(ms)} ms`);
      assert.equal(t.store.openListSnapshots, 1);
    } finally {
      await t.cleanup();
    }
  });

  it('a continuation from before a restart reads on while nothing of its kind changed, and is Gone after', async () => {
    const t = await openTestStore();
    await seed(t, 3);
    const first = await firstPage(t);
    await t.store.close();
    const reopened = await openSqliteStore({ path: t.path, clock: t.clock });
    try {
      const second = await reopened.list('nodes', { limit: 1, continueFrom: first });
      assert.deepEqual(
        second.items.map((n) => n.metadata.name),
        ['n1'],
      );
      await reopened.create('nodes', node('n3'));
      await assert.rejects(reopened.list('nodes', { limit: 1, continueFrom: second.continueFrom! }), GoneError);
    } finally {
      await reopened.close();
      await t.cleanup();
    }
  });
});
