import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { GoneError, NotFoundError, ServiceUnavailableError } from '../../src/core/errors.js';
import { defaultMigrationsDir, migrate, SchemaTooNewError } from '../../src/store/sqlite/migrate.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { collectUntil, lease, nextWithin, node, rv, touched } from './fixtures.js';
import { openTestStore, sqliteBackend, tempDir } from './sqlite-harness.js';
import { runStoreContract } from './store-contract.js';

runStoreContract('sqlite', sqliteBackend);

describe('sqlite migrations', () => {
  it('a fresh database is migrated to the newest schema; reopening applies nothing again', async () => {
    const t = await openTestStore();
    assert.equal(t.store.database.pragma('user_version', { simple: true }), 3);
    assert.equal(t.store.database.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(t.store.database.pragma('synchronous', { simple: true }), 2, 'synchronous=FULL');
    const n = await t.store.create('nodes', node('a'));
    await t.store.close();
    const again = await openSqliteStore({ path: t.path, clock: t.clock });
    assert.equal(again.database.pragma('user_version', { simple: true }), 3);
    assert.deepEqual(await again.get('nodes', 'a'), n);
    await again.close();
    await t.cleanup();
  });

  it('refuses a database whose schema is newer than this shepherd', async () => {
    const dir = tempDir();
    const path = join(dir, 'future.db');
    const db = new Database(path);
    db.pragma('user_version = 7');
    db.close();
    await assert.rejects(openSqliteStore({ path }), (err: unknown) => {
      assert.ok(err instanceof SchemaTooNewError);
      assert.equal(err.message, 'database schema version 7 is newer than this shepherd supports (3): upgrade shepherd');
      return true;
    });
    rmSync(dir, { recursive: true, force: true });
  });

  it('upgrading a v1 database keeps objects and revisions and moves the compacted revision up (old history is dropped)', async () => {
    const dir = tempDir();
    const v1 = join(dir, 'v1-migrations');
    mkdirSync(v1);
    copyFileSync(join(defaultMigrationsDir(), '0001_init.sql'), join(v1, '0001_init.sql'));
    const path = join(dir, 'old.db');
    const clock = new FakeClock();
    const old = new Database(path);
    migrate(old, v1);
    old
      .prepare("INSERT INTO objects (kind, key, revision, value) VALUES ('nodes', 'a', 7, ?)")
      .run(JSON.stringify({ ...node('a'), metadata: { ...node('a').metadata, resourceVersion: '7' } }));
    old
      .prepare(
        "INSERT INTO changes (revision, kind, key, type, value, committed_at) VALUES (7, 'nodes', 'a', 'ADDED', '{}', 0)",
      )
      .run();
    old.prepare('UPDATE meta SET revision = 7').run();
    old.close();
    const s = await openSqliteStore({ path, clock });
    try {
      assert.equal(s.database.pragma('user_version', { simple: true }), 3);
      assert.equal(rv(await s.get('nodes', 'a')), 7);
      assert.equal(await s.currentRevision(), 7);
      assert.equal(await s.compactedRevision(), 7);
      await assert.rejects(nextWithin(s.watch('nodes', 6)[Symbol.asyncIterator]()), GoneError);
      const b = await s.create('nodes', node('b'));
      assert.equal(rv(b), 8);
      const it = s.watch('nodes', 7)[Symbol.asyncIterator]();
      assert.deepEqual((await nextWithin(it)).value, { type: 'ADDED', object: b, revision: 8 });
      await it.return?.();
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('upgrading a database that was never written moves it from revision 0 to 1; a written one keeps its revision', async () => {
    const dir = tempDir();
    const v2 = join(dir, 'v2-migrations');
    mkdirSync(v2);
    for (const f of ['0001_init.sql', '0002_change_log_segments.sql'])
      copyFileSync(join(defaultMigrationsDir(), f), join(v2, f));
    const paths = { empty: join(dir, 'empty.db'), written: join(dir, 'written.db') };
    for (const path of Object.values(paths)) {
      const old = new Database(path);
      migrate(old, v2);
      if (path === paths.written) old.prepare('UPDATE meta SET revision = 5, compacted_revision = 5').run();
      old.close();
    }
    const empty = await openSqliteStore({ path: paths.empty });
    const written = await openSqliteStore({ path: paths.written });
    try {
      assert.equal(await empty.currentRevision(), 1);
      assert.equal((await empty.list('nodes')).revision, 1);
      assert.equal(rv(await empty.create('nodes', node('a'))), 2);
      assert.equal(await written.currentRevision(), 5);
    } finally {
      await empty.close();
      await written.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('applies each file in its own transaction: a failing file leaves the previous version intact', () => {
    const dir = tempDir();
    const migrations = join(dir, 'migrations');
    mkdirSync(migrations);
    writeFileSync(join(migrations, '0001_a.sql'), 'CREATE TABLE a (x INTEGER);');
    writeFileSync(join(migrations, '0002_b.sql'), 'CREATE TABLE b (x INTEGER); INSERT INTO nope VALUES (1);');
    const db = new Database(join(dir, 'm.db'));
    assert.throws(() => migrate(db, migrations), /no such table: nope/);
    assert.equal(db.pragma('user_version', { simple: true }), 1);
    const tables = (): unknown[] =>
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    assert.deepEqual(tables(), ['a']);
    writeFileSync(join(migrations, '0002_b.sql'), 'CREATE TABLE b (x INTEGER);');
    assert.equal(migrate(db, migrations), 2);
    assert.equal(db.pragma('user_version', { simple: true }), 2);
    assert.deepEqual(tables(), ['a', 'b']);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds migrations/ at the package root from src/ and from dist/', () => {
    const root = join(import.meta.dirname, '..', '..');
    assert.equal(defaultMigrationsDir(), join(root, 'migrations'));
    assert.equal(defaultMigrationsDir(join(root, 'dist', 'store', 'sqlite', 'migrate.js')), join(root, 'migrations'));
  });
});

describe('sqlite persistence', () => {
  it('reopening keeps objects, the revision counter, the change log and the compacted revision', async () => {
    const t = await openTestStore();
    const a = await t.store.create('nodes', node('a'));
    const a2 = await t.store.update('nodes', touched(a, 1), a.metadata.resourceVersion);
    const l = await t.store.create('leases', lease('a'));
    await t.store.delete('leases', 'node-lease/a');
    const rev = await t.store.currentRevision();
    await t.store.close();

    const s = await openSqliteStore({ path: t.path, clock: t.clock });
    assert.equal(await s.currentRevision(), rev);
    assert.deepEqual(await s.get('nodes', 'a'), a2);
    const it = s.watch('nodes', 0)[Symbol.asyncIterator]();
    assert.deepEqual(
      (await collectUntil(it, rv(a2))).map((e) => e.revision),
      [rv(a), rv(a2)],
    );
    await it.return?.();
    s.compact(rv(l));
    const next = await s.create('nodes', node('b'));
    assert.equal(rv(next), rev + 1, 'the counter continues, even though the newest change was a delete');
    await s.close();

    const s2 = await openSqliteStore({ path: t.path, clock: t.clock });
    assert.equal(await s2.compactedRevision(), rv(l));
    assert.equal(await s2.currentRevision(), rev + 1);
    await s2.close();
    await t.cleanup();
  });

  it('compacts history older than historyRetentionMs on its own, on the injected clock', async () => {
    const t = await openTestStore({ historyRetentionMs: 5000, compactionIntervalMs: 1000 });
    const a = await t.store.create('nodes', node('a'));
    await t.clock.advance(3000);
    const b = await t.store.create('nodes', node('b'));
    await t.clock.advance(3000);
    assert.equal(await t.store.compactedRevision(), rv(a), 'a is older than 5 s, b is not');
    await assert.rejects(nextWithin(t.store.watch('nodes', 0)[Symbol.asyncIterator]()), GoneError);
    const it = t.store.watch('nodes', rv(a))[Symbol.asyncIterator]();
    assert.equal((await nextWithin(it)).value?.revision, rv(b));
    await it.return?.();
    await t.clock.advance(3000);
    assert.equal(await t.store.compactedRevision(), rv(b));
    assert.equal(t.store.stats().keptRevisions, 0);
    await t.cleanup();
  });

  it('a closed store refuses reads and writes with ServiceUnavailable', async () => {
    const t = await openTestStore();
    const notStarted = t.store.watch('nodes', 0)[Symbol.asyncIterator]();
    await Promise.all([t.store.close(), t.store.close()]);
    assert.equal((await nextWithin(notStarted)).done, true, 'a watch first iterated after close ends at once');
    await assert.rejects(t.store.get('nodes', 'a'), ServiceUnavailableError);
    await assert.rejects(t.store.create('nodes', node('a')), ServiceUnavailableError);
    await assert.rejects(t.store.currentRevision(), ServiceUnavailableError);
    assert.equal((await t.store.watch('nodes', 0)[Symbol.asyncIterator]().next()).done, true);
    await t.cleanup();
  });

  it('opening in a missing directory fails with a clear error', async () => {
    await assert.rejects(
      openSqliteStore({ path: '/nonexistent-shepherd-dir/x.db', clock: new FakeClock() }),
      /cannot open the database at \/nonexistent-shepherd-dir\/x\.db/,
    );
  });

  it('get on a lease names the lease, not its key', async () => {
    const t = await openTestStore();
    await assert.rejects(
      t.store.get('leases', 'node-lease/n9'),
      (e: unknown) => e instanceof NotFoundError && e.details?.name === 'n9',
    );
    await t.cleanup();
  });
});
