import Database from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { preparePageStatements, type PageRow, type PageStatements } from './statements.js';

/** A list's next page must come within this long of the page before it (docs/api.md#paging). */
export const DEFAULT_LIST_SNAPSHOT_TTL_MS = 60_000;
/** Lists held open at once; one more closes the least recently used (its next page is 410 Gone). */
export const DEFAULT_MAX_LIST_SNAPSHOTS = 16;
/** Snapshot connections kept open, unused, for the next list rather than opened anew. */
const IDLE_CONNECTIONS = 2;

export interface ListSnapshotOptions {
  ttlMs?: number;
  max?: number;
}

/** Reads the rows of one page: kind, after this key, below this key (none: no bound), at most limit (-1: all). */
export type PageReader = (kind: string, after: string, below: string | undefined, limit: number) => PageRow[];

export function pageReader(stmts: PageStatements): PageReader {
  return (kind, after, below, limit) =>
    below === undefined ? stmts.after.all(kind, after, limit) : stmts.between.all(kind, after, below, limit);
}

/** A read-only connection of its own: it can hold a read transaction while the writer commits. */
class SnapshotConnection {
  readonly db: Database.Database;
  readonly read: PageReader;
  readonly #revision: Database.Statement<[], number>;

  constructor(path: string) {
    // timeout 0: never wait for a lock on the event loop. A WAL reader only meets one while another process
    // (a backup tool) holds the database; the list then goes on without a snapshot.
    this.db = new Database(path, { readonly: true, fileMustExist: true, timeout: 0 });
    this.read = pageReader(preparePageStatements(this.db));
    this.#revision = this.db.prepare<[], number>('SELECT revision FROM meta WHERE id = 1').pluck();
  }

  /** Opens a read transaction: from here the connection sees the database as it is now, until end(). */
  begin(): number {
    this.db.exec('BEGIN');
    // A deferred transaction takes its snapshot at its first read.
    return this.#revision.get() ?? 0;
  }

  end(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }
}

interface Snapshot {
  revision: number;
  conn: SnapshotConnection;
  /** Lists reading from it: their first page is out and their last is not. */
  lists: number;
  /** Monotonic ms of the last page read through it. */
  usedAt: number;
}

/**
 * The SQLite store keeps only current rows, so a list's later pages are read from a snapshot taken when its first
 * page was: a separate read-only connection holding a read transaction, which WAL keeps at that revision however
 * much the writer commits meanwhile. One snapshot per revision (lists at the same revision share it), closed when
 * its last list has read its last page, after `ttlMs` without a page, or when more than `max` are open (least
 * recently used first). A snapshot stops checkpoints from truncating the WAL, hence the short TTL and the cap.
 */
export class ListSnapshots {
  readonly #path: string;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #ttlMs: number;
  readonly #max: number;
  /** In order of use, least recent first (an entry moves to the end when used). */
  readonly #open = new Map<number, Snapshot>();
  readonly #idle: SnapshotConnection[] = [];

  constructor(path: string, deps: { clock: Clock; log: Logger }, options: ListSnapshotOptions = {}) {
    this.#path = path;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#ttlMs = options.ttlMs ?? DEFAULT_LIST_SNAPSHOT_TTL_MS;
    this.#max = options.max ?? DEFAULT_MAX_LIST_SNAPSHOTS;
  }

  /** Snapshots open now (the store checkpoints PASSIVE while any is, so it never waits for them). */
  get size(): number {
    return this.#open.size;
  }

  /**
   * A list read its first page at `revision` and has more: keep a snapshot at that revision for its later pages.
   * Must run in the same synchronous turn as that read, so that no commit lands in between.
   */
  hold(revision: number): void {
    this.expire();
    const existing = this.#open.get(revision);
    if (existing !== undefined) {
      existing.lists++;
      this.#touch(existing);
      return;
    }
    let conn: SnapshotConnection | undefined;
    try {
      conn = this.#idle.pop() ?? new SnapshotConnection(this.#path);
      const at = conn.begin();
      if (at !== revision) throw new Error(`the snapshot opened at revision ${at}, not ${revision}`);
    } catch (err) {
      this.#log.warn({ err, revision }, 'could not keep a list snapshot; later pages are read only if nothing changed');
      if (conn !== undefined) this.#recycle(conn);
      return;
    }
    this.#open.set(revision, { revision, conn, lists: 1, usedAt: this.#clock.monotonic() });
    for (const oldest of this.#open.values()) {
      if (this.#open.size <= this.#max) break;
      this.#log.debug({ revision: oldest.revision, max: this.#max }, 'too many list snapshots; closing the oldest');
      this.#close(oldest);
    }
  }

  /** Reads through the snapshot at `revision`; undefined when there is none (expired, evicted, never taken). */
  reader(revision: number): PageReader | undefined {
    this.expire();
    const s = this.#open.get(revision);
    if (s === undefined) return undefined;
    this.#touch(s);
    return s.conn.read;
  }

  /** A page was read at `revision` without the snapshot (nothing changed): the list still counts as in use. */
  touch(revision: number): void {
    const s = this.#open.get(revision);
    if (s !== undefined) this.#touch(s);
  }

  /** A list at `revision` has read its last page. */
  release(revision: number): void {
    const s = this.#open.get(revision);
    if (s !== undefined && --s.lists <= 0) this.#close(s);
  }

  /** Closes snapshots unused for longer than the TTL (their lists were abandoned). */
  expire(): void {
    const now = this.#clock.monotonic();
    for (const s of this.#open.values()) {
      if (now - s.usedAt < this.#ttlMs) break;
      this.#log.debug({ revision: s.revision }, 'a list snapshot expired');
      this.#close(s);
    }
  }

  closeAll(): void {
    for (const s of [...this.#open.values()]) this.#close(s);
    for (const conn of this.#idle.splice(0)) conn.db.close();
  }

  #touch(s: Snapshot): void {
    s.usedAt = this.#clock.monotonic();
    this.#open.delete(s.revision);
    this.#open.set(s.revision, s);
  }

  #close(s: Snapshot): void {
    this.#open.delete(s.revision);
    this.#recycle(s.conn);
  }

  #recycle(conn: SnapshotConnection): void {
    try {
      conn.end();
      if (this.#idle.length < IDLE_CONNECTIONS) {
        this.#idle.push(conn);
        return;
      }
    } catch (err) {
      this.#log.warn({ err }, 'could not end a list snapshot; closing its connection');
    }
    conn.db.close();
  }
}
