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

  it('the store leaves checkpoints to the worker, which keeps the WAL small while writes go on', async () => {
    const t = await openTestStore({ compactionIntervalMs: 1000 });
    try {
      assert.equal(t.store.database.pragma('wal_autocheckpoint', { simple: true }), 0);
      const pad = 'p'.repeat(2000);
      let l = await t.store.create('leases', {
        ...lease('n1'),
        metadata: { ...lease('n1').metadata, annotations: { pad } },
      });
      for (let i = 0; i < 300; i++) l = await t.store.update('leases', l, l.metadata.resourceVersion);
      const before = t.store.stats().walBytes;
      assert.ok(before > 300 * 1024, `the WAL grew to ${before} bytes without checkpoints of its own`);
      await t.clock.advance(1000);
      await eventually(() => t.store.stats().walBytes < before / 10, {
        what: 'the WAL truncated after the worker copied it',
        last: () => `${t.store.stats().walBytes} bytes`,
      });
    } finally {
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
