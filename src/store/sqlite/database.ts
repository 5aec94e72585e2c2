import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrate } from './migrate.js';
import type { Statements } from './statements.js';

/** Cap on the WAL file left behind after a checkpoint (SQLite truncates it to this size). */
const JOURNAL_SIZE_LIMIT = 16 * 1024 * 1024;

/**
 * Opens the database with the settings durability depends on: WAL with synchronous=FULL makes every
 * committed transaction fsynced before the write resolves, so a SIGKILL or power cut loses nothing that
 * was acknowledged. busy_timeout covers a backup tool or sqlite3 shell holding a lock for a moment.
 */
export function openDatabase(path: string, migrationsDir?: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    throw new Error(`cannot open the database at ${path}: ${(err as Error).message} (does its directory exist and is it writable?)`, {
      cause: err,
    });
  }
  try {
    db.pragma('busy_timeout = 5000');
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`cannot switch ${path} to WAL mode (got ${String(mode)}): use a local file system`);
    db.pragma('synchronous = FULL');
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    migrate(db, migrationsDir);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

export type CheckpointMode = 'PASSIVE' | 'TRUNCATE';

/** Copies the WAL into the database; TRUNCATE also resets the WAL file to zero bytes. */
export function checkpoint(db: Database.Database, mode: CheckpointMode): void {
  db.pragma(`wal_checkpoint(${mode})`);
}

/**
 * Deletes logged changes up to `revision` and records it as the compacted revision, in one transaction.
 * The freed pages go to SQLite's freelist and are reused by the next inserts, so a steady load keeps the
 * file at a steady size without VACUUM.
 */
export function compactChangeLog(db: Database.Database, stmts: Statements, revision: number): number {
  return db.transaction(() => {
    const { changes } = stmts.deleteChangesUpTo.run(revision);
    stmts.setCompacted.run(revision);
    return changes;
  })();
}

export interface DatabaseStats {
  pageSize: number;
  pageCount: number;
  freelistCount: number;
  /** Size of the -wal file in bytes (0 when absent). */
  walBytes: number;
  /** Rows in the change log. */
  changeLogRows: number;
}

export function databaseStats(db: Database.Database, path: string, stmts: Statements): DatabaseStats {
  let walBytes = 0;
  try {
    walBytes = statSync(`${path}-wal`).size;
  } catch {
    walBytes = 0;
  }
  return {
    pageSize: db.pragma('page_size', { simple: true }) as number,
    pageCount: db.pragma('page_count', { simple: true }) as number,
    freelistCount: db.pragma('freelist_count', { simple: true }) as number,
    walBytes,
    changeLogRows: stmts.countChanges.get() ?? 0,
  };
}
