import type Database from 'better-sqlite3';
import { systemClock, type Clock } from '../../core/clock.js';
import { InternalError, NotFoundError, storeClosedError } from '../../core/errors.js';
import { keyOf, type Resource, type ResourceTypes } from '../../core/kinds.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { splitObjectKey } from '../../core/object-key.js';
import {
  DEFAULT_HISTORY_RETENTION_MS,
  DEFAULT_MAX_WATCH_UNSENT_BYTES,
  type ListOptions,
  type ListResult,
  type Store,
  type StoreEvent,
  type WatchOptions,
  type WriteOptions,
} from '../store.js';
import { EncodedJson } from '../encoded-json.js';
import { WatchHub } from '../watch-hub.js';
import { checkpoint, compactChangeLog, databaseStats, openDatabase, type DatabaseStats } from './database.js';
import { StoreMaintenance } from './maintenance.js';
import { AfterCommit } from './after-commit.js';
import { GroupCommit } from './group-commit.js';
import { storageError, StoreHealth } from './store-health.js';
import { PagedLists, parseRows } from './paged-lists.js';
import { RecentObjects } from './recent-objects.js';
import { ChangeLogReader, DELTA_WINDOW, DeltaBases } from './change-log.js';
import { prepareStatements, type Statements } from './statements.js';
import { sqliteWatch, type WatchSource } from './sqlite-watch.js';
import { ChangeEntry, type BatchResult, type PendingWrite, type WriteOp } from './write-batch.js';
import {
  DEFAULT_COMPACTION_INTERVAL_MS,
  DEFAULT_RECENT_OBJECTS,
  DEFAULT_RECENT_OBJECTS_BYTES,
  DEFAULT_WATCH_QUEUE,
  MAX_COMPACTION_REVISIONS,
  type SqliteStoreOptions,
} from './sqlite-store-options.js';

/** Opens (creating and migrating as needed) the database at `options.path` and starts compaction. */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  const log = options.log ?? silentLogger;
  const db = openDatabase(options.path, {
    migrationsDir: options.migrationsDir,
    integrityCheckMaxBytes: options.integrityCheckMaxBytes,
    warn: (obj, msg) => log.warn(obj, msg),
  });
  return new SqliteStore(db, options);
}

/**
 * The embedded Store: objects updated in place, one global revision, a change log for watch resumes.
 * Writes are group-committed (group-commit.ts): every write queued in one event-loop turn is applied in one
 * fsynced transaction at setImmediate, each with its own outcome, in call order.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly path: string;
  readonly #db: Database.Database;
  readonly #stmts: Statements;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #retentionMs: number;
  readonly #hub = new WatchHub<ChangeEntry>((change) => change.bytes);
  readonly #encoded = new EncodedJson();
  readonly #maintenance: StoreMaintenance;
  readonly #recent: RecentObjects;
  readonly #after: AfterCommit;
  readonly #deltaWindow: number;
  readonly #lists: PagedLists;
  /** What every watch reads from (sqlite-watch.ts). */
  readonly #watchSource: WatchSource;
  #revision: number;
  #compacted: number;
  readonly #group: GroupCommit;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #health: StoreHealth;

  /** Use openSqliteStore; this takes a database already opened and migrated by it. */
  constructor(db: Database.Database, options: SqliteStoreOptions) {
    this.path = options.path;
    this.#db = db;
    this.#stmts = prepareStatements(db);
    this.#clock = options.clock ?? systemClock;
    this.#log = (options.log ?? silentLogger).child({ component: 'sqlite-store' });
    this.#retentionMs = options.historyRetentionMs ?? DEFAULT_HISTORY_RETENTION_MS;
    const cache = {
      entries: options.recentObjects ?? DEFAULT_RECENT_OBJECTS,
      bytes: options.recentObjectsBytes ?? DEFAULT_RECENT_OBJECTS_BYTES,
    };
    this.#recent = new RecentObjects(cache.entries, cache.bytes, (json) => json.length);
    this.#deltaWindow = options.deltaWindow ?? DELTA_WINDOW;
    const bases = new DeltaBases(cache, this.#deltaWindow);
    const reader = new ChangeLogReader(this.#stmts);
    // One read transaction per replay step: a segment and the bases its deltas refer to are read consistently.
    this.#health = new StoreHealth(this.path, () => this.#probe());
    const readChanges = db.transaction((resource: Resource, after: number, upTo: number, limit: number) =>
      reader.changes(resource, after, upTo, limit),
    );
    const meta = this.#stmts.readMeta.get();
    if (!meta) throw new InternalError(`database ${this.path} has no meta row: it is not a shepherd database`);
    this.#revision = meta.revision;
    this.#compacted = meta.compacted_revision;
    this.#group = new GroupCommit({
      db,
      stmts: this.#stmts,
      bases,
      clock: this.#clock,
      log: this.#log,
      health: this.#health,
      revision: () => this.#revision,
      committed: (batch, result) => this.#committed(batch, result),
      onCommit: options.onCommit,
    });
    this.#lists = new PagedLists(
      { path: this.path, page: this.#stmts.page, clock: this.#clock, log: this.#log, revision: meta.revision },
      { ttlMs: options.listSnapshotTtlMs, max: options.maxListSnapshots },
    );
    this.#after = new AfterCommit({
      lists: this.#lists,
      bases,
      hub: this.#hub,
      recent: this.#recent,
      encoded: this.#encoded,
    });
    this.#watchSource = {
      hub: this.#hub,
      clock: this.#clock,
      queueCapacity: options.watchQueueCapacity ?? DEFAULT_WATCH_QUEUE,
      queueBytes: options.maxWatchUnsentBytes ?? DEFAULT_MAX_WATCH_UNSENT_BYTES,
      readChanges: (r: Resource, after: number, upTo: number, limit: number) =>
        this.#read(() => readChanges(r, after, upTo, limit)).map((row) =>
          this.#after.withJson(new ChangeEntry(r, row.type, row.revision, row.value)),
        ),
      compactedRevision: () => this.#compacted,
      currentRevision: () => this.#revision,
      closed: () => this.#closed,
    };
    this.#maintenance = new StoreMaintenance(
      {
        db,
        path: this.path,
        clock: this.#clock,
        log: this.#log,
        compact: () => {
          if (this.#closed) return;
          this.compact();
          this.#lists.expire();
        },
        quiet: () => this.#group.queued === 0 && this.#lists.openSnapshots === 0,
        revision: () => this.#revision,
      },
      {
        intervalMs: options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS,
        checkpointOnWorker: options.checkpointOnWorker ?? true,
      },
    );
  }

  async get<R extends Resource>(resource: R, key: string): Promise<ResourceTypes[R]> {
    this.#assertOpen();
    const cached = this.#recent.get(resource, key);
    if (cached !== undefined) {
      const obj = JSON.parse(cached) as ResourceTypes[R];
      this.#encoded.record(obj, cached);
      return obj;
    }
    const row = this.#read(() => this.#stmts.getObject.get(resource, key));
    if (row === undefined) throw new NotFoundError(resource, splitObjectKey(key).name);
    // Neither cached nor kept (a text is built if ever sent): the read is mostly the one before a write, and keeping
    // the old text only makes it old-generation garbage (BENCHMARKS.md §30). The cache holds what this store wrote.
    const obj = JSON.parse(row.value) as ResourceTypes[R];
    this.#encoded.recordLazily(obj);
    return obj;
  }

  async list<R extends Resource>(resource: R, options: ListOptions = {}): Promise<ListResult<ResourceTypes[R]>> {
    // A turn of the event loop before each page: an in-process reader (an informer over the local client) asks
    // for page after page in microtasks, which would otherwise hold off every request until its last page.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // One connection and synchronous reads: nothing can commit between the rows and the revision.
    const page = this.#read(() => this.#lists.read(resource, options, this.#revision));
    const items = await parseRows<ResourceTypes[R]>(page.rows);
    for (const item of items) this.#encoded.recordLazily(item);
    return page.continueFrom === undefined
      ? { items, revision: page.revision }
      : { items, revision: page.revision, continueFrom: page.continueFrom };
  }

  async create<R extends Resource>(resource: R, obj: ResourceTypes[R]): Promise<ResourceTypes[R]> {
    return this.#group.enqueue({ op: 'create', resource, key: keyOf(resource, obj), obj }) as Promise<ResourceTypes[R]>;
  }

  async update<R extends Resource>(
    resource: R,
    obj: ResourceTypes[R],
    expectedResourceVersion: string,
    options: WriteOptions = {},
  ): Promise<ResourceTypes[R]> {
    const key = keyOf(resource, obj);
    const op: WriteOp = {
      op: 'update',
      resource,
      key,
      obj,
      expected: expectedResourceVersion,
      handOver: options.handOver,
    };
    return this.#group.enqueue(op) as Promise<ResourceTypes[R]>;
  }

  async delete<R extends Resource>(
    resource: R,
    key: string,
    options: { expectedResourceVersion?: string } = {},
  ): Promise<ResourceTypes[R]> {
    return this.#group.enqueue({ op: 'delete', resource, key, expected: options.expectedResourceVersion }) as Promise<
      ResourceTypes[R]
    >;
  }

  watch<R extends Resource>(
    resource: R,
    fromRevision: number,
    options: WatchOptions = {},
  ): AsyncIterable<StoreEvent<ResourceTypes[R]>> {
    if (this.#closed) return (async function* () {})();
    return sqliteWatch(this.#watchSource, resource, fromRevision, options) as AsyncIterable<
      StoreEvent<ResourceTypes[R]>
    >;
  }

  encodedJson(obj: object): string | undefined {
    return this.#encoded.get(obj);
  }

  async currentRevision(): Promise<number> {
    this.#assertOpen();
    return this.#revision;
  }

  async compactedRevision(): Promise<number> {
    this.#assertOpen();
    return this.#compacted;
  }

  /**
   * Ready unless the database has shown corruption (until a restart: nothing heals that but a restore) or its last
   * commit or read failed with an I/O error (until a commit, or the write probe run here, succeeds again). A full
   * disk or a read-only file does not count: reads are still served (docs/api.md#health-version-and-metrics).
   */
  async checkHealth(): Promise<void> {
    this.#assertOpen();
    this.#health.check();
  }

  /**
   * Drops change history: up to `upToRevision` when given (tests, admin), else everything committed longer
   * than historyRetentionMs ago. Returns the new compacted revision.
   */
  compact(upToRevision?: number): number {
    this.#assertOpen();
    const cutoff = this.#clock.now() - this.#retentionMs;
    const due =
      upToRevision ??
      Math.min(this.#stmts.newestChangeBefore.get(cutoff) ?? 0, this.#compacted + MAX_COMPACTION_REVISIONS);
    const target = Math.min(due, this.#revision);
    if (target <= this.#compacted) return this.#compacted;
    const deleted = compactChangeLog(this.#db, this.#stmts, target, this.#deltaWindow);
    this.#compacted = target;
    this.#log.debug({ compactedRevision: target, deletedSegments: deleted }, 'compacted the change log');
    return target;
  }

  /** Page and WAL figures, for tests, metrics and `sheepctl` diagnostics. */
  stats(): DatabaseStats {
    this.#assertOpen();
    return databaseStats(this.#db, this.path, this.#stmts);
  }

  /** Paged lists whose snapshot is open (list-snapshots.ts), for tests and diagnostics. */
  get openListSnapshots(): number {
    return this.#lists.openSnapshots;
  }

  /** The connection itself, for tests and diagnostics only: writing through it bypasses revisions and watches. */
  get database(): Database.Database {
    return this.#db;
  }

  /** Ends every watch, commits pending writes, stops compaction, checkpoints and closes the database. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#hub.endAll();
    this.#group.close();
    this.#closed = true;
    await this.#maintenance.stop();
    this.#lists.closeAll();
    try {
      checkpoint(this.#db, 'TRUNCATE');
    } catch (err) {
      this.#log.warn({ err }, 'final WAL checkpoint failed; the next open recovers from the WAL');
    }
    this.#db.close();
  }

  /** Right after the transaction, in one synchronous step: the revision, then everything after-commit.ts does. */
  #committed(batch: PendingWrite[], result: BatchResult): void {
    this.#revision = result.revision;
    this.#after.committed(batch, result);
  }

  #read<T>(fn: () => T): T {
    this.#assertOpen();
    try {
      return fn();
    } catch (err) {
      this.#health.failed(err);
      throw storageError(err);
    }
  }

  /** A read of the meta row and a write that changes nothing, committed (and fsynced) like any other. */
  #probe(): void {
    this.#db.transaction(() => {
      const meta = this.#stmts.readMeta.get();
      if (meta) this.#stmts.setRevision.run(meta.revision);
    })();
  }

  #assertOpen(): void {
    if (this.#closed) throw storeClosedError();
  }
}
