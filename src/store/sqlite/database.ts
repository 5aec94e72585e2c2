import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrate } from './migrate.js';
import type { Statements } from './statements.js';

/** Cap on the WAL file left behind after a checkpoint (SQLite truncates it to this size). */
const JOURNAL_SIZE_LIMIT = 16 * 1024 * 1024;

/**
 * Databases up to this size are checked with `PRAGMA quick_check` on open: it reads every page (about 250 MB/s
 * here, so 512 MiB costs ~2 s of start-up); a larger one is opened unchecked, with a log line saying how to check
 * it offline, rather than hold a restart for a minute.
 */
export const DEFAULT_INTEGRITY_CHECK_MAX_BYTES = 512 * 1024 * 1024;

/** SQLite's own word that the file is not a sound database (as opposed to full, read-only or busy). */
export function isCorruption(err: unknown): boolean {
  if (!(err instanceof Database.SqliteError)) return false;
  return err.code.startsWith('SQLITE_CORRUPT') || err.code === 'SQLITE_NOTADB';
}

/** The database file is damaged: shepherd refuses to start on it rather than serve what it can still read. */
export class DatabaseDamagedError extends Error {
  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super(
      `the database at ${path} is damaged (${detail}): restore it from a backup (stop shepherd, copy the backup to ${path}, delete ${path}-wal and ${path}-shm), or start with --db pointing to a new file to begin with an empty store`,
      options,
    );
    this.name = 'DatabaseDamagedError';
  }
}

export interface OpenDatabaseOptions {
  migrationsDir?: string | undefined;
  /** quick_check only files up to this size (DEFAULT_INTEGRITY_CHECK_MAX_BYTES); 0 never checks. */
  integrityCheckMaxBytes?: number | undefined;
  /** Told when the check is skipped for size. */
  warn?: ((obj: object, msg: string) => void) | undefined;
}

/** `PRAGMA quick_check` (structure, not index contents), bounded by file size; throws DatabaseDamagedError. */
export function checkIntegrity(db: Database.Database, path: string, options: OpenDatabaseOptions): void {
  const max = options.integrityCheckMaxBytes ?? DEFAULT_INTEGRITY_CHECK_MAX_BYTES;
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    size = 0;
  }
  if (max <= 0 || size > max) {
    if (max > 0)
      options.warn?.(
        { path, bytes: size, limit: max },
        `not checking the database on open: it is larger than ${max} bytes; check it offline with sqlite3 ${path} 'PRAGMA quick_check' while shepherd is stopped`,
      );
    return;
  }
  const rows = db.pragma('quick_check(5)') as { quick_check: string }[];
  const problems = rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
  if (problems.length > 0) throw new DatabaseDamagedError(path, `quick_check: ${problems.join('; ').slice(0, 300)}`);
}

/**
 * Opens the database with the settings durability depends on: WAL with synchronous=FULL makes every
 * committed transaction fsynced before the write resolves, so a SIGKILL or power cut loses nothing that
 * was acknowledged. busy_timeout covers a backup tool or sqlite3 shell holding a lock for a moment. A damaged
 * file (quick_check, or SQLite refusing it) is DatabaseDamagedError, which says what to do.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    throw new Error(
      `cannot open the database at ${path}: ${(err as Error).message} (does its directory exist and is it writable?)`,
      {
        cause: err,
      },
    );
  }
  try {
    db.pragma('busy_timeout = 5000');
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal')
      throw new Error(`cannot switch ${path} to WAL mode (got ${String(mode)}): use a local file system`);
    db.pragma('synchronous = FULL');
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    checkIntegrity(db, path, options);
    migrate(db, options.migrationsDir);
    return db;
  } catch (err) {
    db.close();
    if (isCorruption(err)) throw new DatabaseDamagedError(path, (err as Error).message, { cause: err });
    throw err;
  }
}

export type CheckpointMode = 'PASSIVE' | 'TRUNCATE';

/** Copies the WAL into the database; TRUNCATE also resets the WAL file to zero bytes. */
export function checkpoint(db: Database.Database, mode: CheckpointMode): void {
  db.pragma(`wal_checkpoint(${mode})`);
}

/**
 * Records `revision` as the compacted revision (watches may resume from it on) and deletes the change-log
 * segments that end `deltaWindow` revisions before it, in one transaction: a logged delta may refer back that far
 * for its base, so the segments in between stay until no kept delta can need them. Returns the segments deleted.
 * The freed pages go to SQLite's freelist and are reused by the next inserts, so a steady load keeps the file at a
 * steady size without VACUUM.
 */
export function compactChangeLog(
  db: Database.Database,
  stmts: Statements,
  revision: number,
  deltaWindow: number,
): number {
  return db.transaction(() => {
    const drop = revision - deltaWindow;
    const { changes } = stmts.deleteSegmentsUpTo.run(drop, drop);
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
  /** Changes in the kept history (revisions after the compacted one; each revision is one change). */
  keptRevisions: number;
  /** Change-log rows on disk: one per commit, kept a little beyond the compacted revision for delta bases. */
  changeLogSegments: number;
}

export function databaseStats(db: Database.Database, path: string, stmts: Statements): DatabaseStats {
  const meta = stmts.readMeta.get();
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
    keptRevisions: meta ? meta.revision - meta.compacted_revision : 0,
    changeLogSegments: stmts.countSegments.get() ?? 0,
  };
}
