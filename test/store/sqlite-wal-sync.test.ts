import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ServiceUnavailableError } from '../../src/core/errors.js';
import type { Lease } from '../../src/core/lease.js';
import type { WalSyncer } from '../../src/store/sqlite/wal-sync.js';
import type { StoreEvent } from '../../src/store/store.js';
import { lease, nextWithin, rv, touched } from './fixtures.js';
import { openTestStore } from './sqlite-harness.js';

/** A syncer the test releases by hand: each sync() waits until `release()` (or `fail()`) answers it. */
class HeldSyncer implements WalSyncer {
  readonly waiting: { resolve(): void; reject(err: Error): void }[] = [];
  calls = 0;
  syncNowCalls = 0;
  #open = false;

  sync(): Promise<void> {
    this.calls++;
    if (this.#open) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }
  syncNow(): void {
    this.syncNowCalls++;
  }
  close(): void {}
  release(): void {
    this.waiting.shift()?.resolve();
  }
  fail(err: Error): void {
    this.waiting.shift()?.reject(err);
  }
  /** Answers every sync from now on at once (so a test's clean-up can close the store whatever it left). */
  open(): void {
    this.#open = true;
    for (const w of this.waiting.splice(0)) w.resolve();
  }
}

/** Lets the group commit run (setImmediate) and any settled promise callbacks after it. */
async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Tracks whether a promise settled, without awaiting it. */
function track<T>(p: Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  p.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe('sqlite store: the WAL synced off the event loop', () => {
  it('a write is answered and watched only after a sync that began after its commit', async () => {
    const syncer = new HeldSyncer();
    const t = await openTestStore({ walSyncer: syncer });
    try {
      const first = track(t.store.create('leases', lease('a')));
      await turns();
      assert.equal(syncer.calls, 1, 'the commit started a sync');
      assert.equal(first.settled, false, 'not answered before the sync');
      syncer.release();
      await turns();
      const created = first.value as Lease;
      assert.ok(created, 'answered once synced');

      const it = t.store.watch('leases', rv(created))[Symbol.asyncIterator]();
      const next = nextWithin(it, 5_000);
      const update = track(t.store.update('leases', touched(created, 1), created.metadata.resourceVersion));
      await turns();
      assert.equal(update.settled, false);
      // Reads see the committed row before its writer is answered (docs/architecture.md#durability).
      assert.equal((await t.store.get('leases', 'node-lease/a')).metadata.resourceVersion, String(rv(created) + 1));
      const raced = await Promise.race([next.then(() => 'event'), turns().then(() => 'none')]);
      assert.equal(raced, 'none', 'watchers see nothing before the sync');
      syncer.release();
      const ev = (await next).value as StoreEvent<Lease>;
      assert.equal(ev.revision, rv(created) + 1);
      await turns();
      assert.equal((update.value as Lease).metadata.resourceVersion, String(rv(created) + 1));
      await it.return?.();
    } finally {
      syncer.open();
      await t.cleanup();
    }
  });

  it('commits go on while a sync runs; the next sync covers them all, answered in order', async () => {
    const syncer = new HeldSyncer();
    const t = await openTestStore({ walSyncer: syncer });
    try {
      const base = await t.store.currentRevision();
      const a = track(t.store.create('leases', lease('a')));
      await turns();
      const b = track(t.store.create('leases', lease('b')));
      await turns();
      const c = track(t.store.create('leases', lease('c')));
      await turns();
      assert.equal(syncer.calls, 1, 'one sync in flight; b and c committed behind it');
      assert.equal(await t.store.currentRevision(), base + 3, 'all three committed');
      syncer.release();
      await turns();
      assert.equal(a.settled, true);
      assert.equal(b.settled || c.settled, false, 'b and c wait for a sync begun after their commit');
      assert.equal(syncer.calls, 2);
      syncer.release();
      await turns();
      assert.deepEqual(
        [a, b, c].map((s) => (s.value as Lease).metadata.resourceVersion),
        [1, 2, 3].map((n) => String(base + n)),
      );
    } finally {
      syncer.open();
      await t.cleanup();
    }
  });

  it('a watch that starts while a batch awaits its sync gets each change once, in order', async () => {
    const syncer = new HeldSyncer();
    const t = await openTestStore({ walSyncer: syncer });
    try {
      const base = await t.store.currentRevision();
      const a = t.store.create('leases', lease('a'));
      await turns();
      syncer.release();
      await a;
      const b = track(t.store.create('leases', lease('b')));
      await turns();
      const it = t.store.watch('leases', base)[Symbol.asyncIterator]();
      const first = ((await nextWithin(it, 5_000)).value as StoreEvent<Lease>).revision;
      const second = nextWithin(it, 5_000);
      syncer.release();
      await turns();
      assert.equal(b.settled, true);
      const c = t.store.create('leases', lease('c'));
      await turns();
      syncer.release();
      await c;
      const rest = [((await second).value as StoreEvent<Lease>).revision];
      rest.push(((await nextWithin(it, 5_000)).value as StoreEvent<Lease>).revision);
      assert.deepEqual(
        [first, ...rest],
        [1, 2, 3].map((n) => base + n),
      );
      await it.return?.();
    } finally {
      syncer.open();
      await t.cleanup();
    }
  });

  it('a failed sync refuses its writes and every later one, and keeps the server unready until a restart', async () => {
    const syncer = new HeldSyncer();
    const t = await openTestStore({ walSyncer: syncer });
    try {
      const base = await t.store.currentRevision();
      const it = t.store.watch('leases', base)[Symbol.asyncIterator]();
      const next = nextWithin(it, 5_000);
      const a = track(t.store.create('leases', lease('a')));
      await turns();
      const b = track(t.store.create('leases', lease('b')));
      await turns();
      syncer.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      await turns();
      for (const s of [a, b]) {
        assert.ok(s.error instanceof ServiceUnavailableError, String(s.error));
        assert.match(s.error.message, /fsync of the database's WAL failed \(EIO.*refuses writes until it is restarted/);
      }
      // Committed all the same: reads and watchers see what is in the database.
      assert.equal(((await next).value as StoreEvent<Lease>).revision, base + 1);
      assert.equal((await t.store.list('leases')).items.length, 2);
      await assert.rejects(t.store.create('leases', lease('c')), ServiceUnavailableError);
      await assert.rejects(t.store.checkHealth(), /fsync of the database's WAL failed/);
      assert.equal(syncer.calls, 1, 'no further sync: it could report success for pages already lost');
      await it.return?.();
    } finally {
      syncer.open();
      await t.cleanup();
    }
  });

  it('close answers the writes still waiting for their sync', async () => {
    const syncer = new HeldSyncer();
    const t = await openTestStore({ walSyncer: syncer });
    const base = await t.store.currentRevision();
    const a = track(t.store.create('leases', lease('a')));
    await turns();
    const closed = t.store.close();
    await turns();
    assert.equal(a.settled, false);
    syncer.release();
    await closed;
    assert.equal((a.value as Lease).metadata.resourceVersion, String(base + 1));
    await t.cleanup();
  });

  it('the real syncer fdatasyncs the -wal file; with syncWalOffLoop off SQLite fsyncs inside COMMIT', async () => {
    const t = await openTestStore();
    const off = await openTestStore({ syncWalOffLoop: false });
    try {
      await t.store.create('leases', lease('a'));
      assert.ok(statSync(`${t.path}-wal`).size > 0);
      assert.equal(t.store.database.pragma('synchronous', { simple: true }), 1, 'NORMAL: no fsync in COMMIT');
      assert.equal(off.store.database.pragma('synchronous', { simple: true }), 2, 'FULL');
      await off.store.create('leases', lease('a'));
      const created = await off.store.get('leases', 'node-lease/a');
      assert.equal(created.metadata.resourceVersion, String(await off.store.currentRevision()));
    } finally {
      await t.cleanup();
      await off.cleanup();
    }
  });
});
