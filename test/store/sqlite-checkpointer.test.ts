import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { rmSync } from 'node:fs';
import { Checkpointer } from '../../src/store/sqlite/checkpointer.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { eventually } from '../support/eventually.js';
import { lease } from './fixtures.js';
import { openTestStore, tempDir } from './sqlite-harness.js';

describe('WAL checkpoints on a worker thread', () => {
  it('a pass copies every frame the WAL holds into the database file, from its own connection', async () => {
    const dir = tempDir();
    const path = join(dir, 'db');
    const db = openDatabase(path);
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 200; i++) insert.run('x'.repeat(1000));
    const checkpointer = new Checkpointer(path);
    try {
      const result = await checkpointer.run();
      assert.equal(result.busy, false);
      assert.ok(result.logFrames > 50, `the WAL held ${result.logFrames} frames`);
      assert.equal(result.checkpointedFrames, result.logFrames);
      // A second pass while the first is under way is refused rather than queued.
      const first = checkpointer.run();
      await assert.rejects(checkpointer.run(), /already running/);
      await first;
    } finally {
      await checkpointer.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
    await assert.rejects(checkpointer.run(), /closed/);
  });

  it('a worker that cannot open the database fails its passes instead of hanging them', async () => {
    const checkpointer = new Checkpointer(join(tempDir(), 'missing', 'dir', 'db'));
    await assert.rejects(checkpointer.run(), /checkpoint/i);
  });

  it('the store leaves checkpoints to the worker: under writes the WAL starts over in place, once idle it is truncated', async () => {
    const t = await openTestStore({ compactionIntervalMs: 1000 });
    try {
      assert.equal(t.store.database.pragma('wal_autocheckpoint', { simple: true }), 0);
      const pad = 'p'.repeat(2000);
      let l = await t.store.create('leases', {
        ...lease('n1'),
        metadata: { ...lease('n1').metadata, annotations: { pad } },
      });
      const renew = async (times: number): Promise<void> => {
        for (let i = 0; i < times; i++) l = await t.store.update('leases', l, l.metadata.resourceVersion);
      };
      await renew(300);
      const grown = t.store.stats().walBytes;
      assert.ok(grown > 300 * 1024, `the WAL grew to ${grown} bytes without checkpoints of its own`);
      // Writes go on through the step: the worker copies the WAL and the event loop the last frames, so a later
      // commit finds it all copied and writes from the start of the file again instead of growing it.
      await t.clock.advance(1000);
      const startedOver = await eventually(
        async () => {
          const before = t.store.stats().walBytes;
          await renew(1);
          return t.store.stats().walBytes === before ? before : 0;
        },
        { what: 'a commit that writes over the copied WAL', last: () => `${t.store.stats().walBytes} bytes` },
      );
      await renew(300);
      assert.ok(
        t.store.stats().walBytes <= startedOver * 1.05,
        `300 more renewals reuse the file: ${t.store.stats().walBytes} bytes against ${startedOver}`,
      );
      // No write since the previous step: the next one resets the file to zero bytes.
      await eventually(
        async () => {
          await t.clock.advance(1000);
          return t.store.stats().walBytes < startedOver / 10;
        },
        { what: 'the WAL truncated once writes stopped', last: () => `${t.store.stats().walBytes} bytes` },
      );
    } finally {
      await t.cleanup();
    }
  });

  it('under writes that never pause, the event loop copies the last frames itself, so the WAL still starts over', async () => {
    const t = await openTestStore({ compactionIntervalMs: 1000 });
    let writing = true;
    let writes = 0;
    try {
      let l = await t.store.create('leases', lease('n1'));
      for (let i = 0; i < 100; i++) l = await t.store.update('leases', l, l.metadata.resourceVersion);
      // What a commit appends to a WAL that does not start over.
      const perCommit = t.store.stats().walBytes / 101;
      // One write after another, each in its own commit: the worker's passes never catch up with them alone.
      const writer = (async () => {
        while (writing) {
          l = await t.store.update('leases', l, l.metadata.resourceVersion);
          writes++;
        }
      })();
      for (let step = 0; step < 4; step++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        await t.clock.advance(1000);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
      writing = false;
      await writer;
      const { walBytes } = t.store.stats();
      // Four steps in: a WAL that started over at each holds about the last step's commits (a quarter), one that
      // never did holds them all.
      assert.ok(writes > 500, `only ${writes} writes`);
      assert.ok(
        walBytes < writes * perCommit * 0.6,
        `the WAL holds ${walBytes} bytes after ${writes} commits of ${perCommit.toFixed(0)} bytes`,
      );
    } finally {
      writing = false;
      await t.cleanup();
    }
  });

  it('with checkpointOnWorker false the store checkpoints on the event loop, as SQLite does by default', async () => {
    const t = await openTestStore({ compactionIntervalMs: 1000, checkpointOnWorker: false });
    try {
      assert.equal(t.store.database.pragma('wal_autocheckpoint', { simple: true }), 1000);
      let l = await t.store.create('leases', lease('n1'));
      for (let i = 0; i < 50; i++) l = await t.store.update('leases', l, l.metadata.resourceVersion);
      assert.ok(t.store.stats().walBytes > 0);
      await t.clock.advance(1000);
      assert.equal(t.store.stats().walBytes, 0, 'TRUNCATE ran in the pass itself');
    } finally {
      await t.cleanup();
    }
  });
});
