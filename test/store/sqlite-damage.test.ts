import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { ServiceUnavailableError } from '../../src/core/errors.js';
import { recordingLogger } from '../../src/core/logger.js';
import { DatabaseDamagedError } from '../../src/store/sqlite/database.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { StoreHealth } from '../../src/store/sqlite/store-health.js';
import { damage, filledStore } from '../support/damaged-db.js';
import { tempDir } from './sqlite-harness.js';

describe('a damaged SQLite database', () => {
  it('is refused on open, saying to restore a backup or use another --db', async () => {
    const dir = tempDir();
    const path = join(dir, 'shepherd.db');
    await (await filledStore(path)).close();
    damage(path);
    await assert.rejects(openSqliteStore({ path }), (err: unknown) => {
      assert.ok(err instanceof DatabaseDamagedError, String(err));
      assert.match(err.message, /the database at .*shepherd\.db is damaged \(quick_check: /);
      assert.match(err.message, /restore it from a backup .* or start with --db pointing to a new file/);
      return true;
    });
  });

  it('whose header is not SQLite is refused the same way', async () => {
    const dir = tempDir();
    const path = join(dir, 'shepherd.db');
    await (await filledStore(path)).close();
    damage(path, { header: true });
    await assert.rejects(openSqliteStore({ path }), DatabaseDamagedError);
  });

  it('above the check size is opened unchecked, with a warning that says how to check it', async () => {
    const dir = tempDir();
    const path = join(dir, 'shepherd.db');
    await (await filledStore(path)).close();
    const log = recordingLogger();
    const store = await openSqliteStore({ path, integrityCheckMaxBytes: 4096, log });
    await store.close();
    assert.ok(log.lines.some((l) => l.level === 'warn' && /PRAGMA quick_check/.test(l.msg)));
  });
});

describe('StoreHealth', () => {
  it('an I/O error makes the store unready until the probe succeeds; corruption until a restart', () => {
    let probeFails = true;
    const health = new StoreHealth('/data/shepherd.db', () => {
      if (probeFails) throw new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_FSYNC');
    });
    health.check();
    health.failed(new Database.SqliteError('database or disk is full', 'SQLITE_FULL'));
    health.check(); // a full disk leaves reads working: still ready
    health.failed(new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE'));
    assert.throws(
      () => health.check(),
      (e: unknown) => e instanceof ServiceUnavailableError && /I\/O errors/.test(e.message),
    );
    probeFails = false;
    health.check();
    health.failed(new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE'));
    health.succeeded();
    health.check();
    health.failed(new Database.SqliteError('database disk image is malformed', 'SQLITE_CORRUPT'));
    health.succeeded();
    assert.throws(() => health.check(), /damaged .* restore it from a backup/);
  });
});
