import type Database from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import { ServiceUnavailableError, storeClosedError } from '../../core/errors.js';
import type { AnyObject } from '../../core/kinds.js';
import type { Logger } from '../../core/logger.js';
import type { DeltaBases } from './change-log.js';
import type { Statements } from './statements.js';
import { storageError, type StoreHealth } from './store-health.js';
import type { WalSyncer } from './wal-sync.js';
import { applyBatch, type BatchResult, type PendingWrite, type WriteOp } from './write-batch.js';

export interface GroupCommitDeps {
  db: Database.Database;
  stmts: Statements;
  bases: DeltaBases;
  clock: Clock;
  log: Logger;
  health: StoreHealth;
  /** Syncs the WAL after each commit; undefined when SQLite fsyncs inside COMMIT (`synchronous = FULL`). */
  syncer: WalSyncer | undefined;
  /** The newest committed revision, the base of the next batch's revisions. */
  revision(): number;
  /** Right after the transaction, in the same synchronous step: the store's revision and caches follow the rows. */
  committed(batch: PendingWrite[], result: BatchResult): void;
  /**
   * Once the batch is on disk: publish its changes and answer its writes. `failure` is set when the sync failed:
   * the changes are committed (reads show them) but may not survive a power loss, so their writes get `failure`.
   */
  settle(batch: PendingWrite[], result: BatchResult, failure: Error | undefined): void;
  /** For the commit-latency / batch-size metrics: from the transaction's start until the batch was settled. */
  onCommit?: ((batchSize: number, durationMs: number) => void) | undefined;
}

interface Committed {
  batch: PendingWrite[];
  result: BatchResult;
  started: number;
}

/**
 * Group commit: every write queued in one event-loop turn is applied in one transaction at setImmediate, each with
 * its own outcome, in call order. With a syncer, COMMIT does not wait for the disk (`synchronous = NORMAL`); the
 * WAL is synced on libuv's thread pool and a batch is settled only after a sync that began after its commit, so a
 * write is acknowledged, and watchers see it, only once it is as durable as with SQLite's own fsync. Commits go on
 * while a sync runs; the next sync covers all of them, in order. Reads of the store may see a committed batch up
 * to one sync (a few ms) before its writers are answered (docs/architecture.md#durability).
 */
export class GroupCommit {
  readonly #deps: GroupCommitDeps;
  #queue: PendingWrite[] = [];
  #scheduled: NodeJS.Immediate | undefined;
  /** Committed batches waiting for the next sync. */
  #unsynced: Committed[] = [];
  #syncing: Promise<void> | undefined;
  /** Set for good when a sync failed: nothing written since can be acknowledged honestly (docs/api.md#health-version-and-metrics). */
  #lost: Error | undefined;
  #closed = false;

  constructor(deps: GroupCommitDeps) {
    this.#deps = deps;
  }

  /** Writes queued and not yet committed (maintenance's TRUNCATE waits for a quiet moment). */
  get queued(): number {
    return this.#queue.length;
  }

  enqueue(op: WriteOp): Promise<AnyObject> {
    if (this.#closed) return Promise.reject(storeClosedError());
    if (this.#lost !== undefined) return Promise.reject(this.#lost);
    return new Promise<AnyObject>((resolve, reject) => {
      this.#queue.push({ ...op, resolve, reject });
      this.#scheduled ??= setImmediate(() => this.#commit());
    });
  }

  /** Commits what is queued, refuses later writes, and waits until every committed batch is settled. */
  async close(): Promise<void> {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#commit();
    this.#closed = true;
    while (this.#syncing !== undefined) await this.#syncing;
  }

  #commit(): void {
    this.#scheduled = undefined;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    const lost = this.#lost;
    if (lost !== undefined) return batch.forEach((w) => w.reject(lost));
    const { db, stmts, bases, clock, health, log } = this.#deps;
    const started = clock.monotonic();
    let result: BatchResult;
    try {
      result = db.transaction(() => applyBatch({ stmts, bases }, batch, this.#deps.revision(), clock.now()))();
    } catch (err) {
      const failure = storageError(err);
      health.failed(err);
      log.error({ err, batchSize: batch.length }, 'commit failed; every write of the batch was refused');
      for (const w of batch) w.reject(failure);
      return;
    }
    health.succeeded();
    this.#deps.committed(batch, result);
    const committed = { batch, result, started };
    if (this.#deps.syncer === undefined) return this.#settle(committed, undefined);
    this.#unsynced.push(committed);
    this.#sync();
  }

  /** One sync at a time, covering every batch committed before it began. */
  #sync(): void {
    const syncer = this.#deps.syncer;
    if (syncer === undefined || this.#syncing !== undefined || this.#unsynced.length === 0) return;
    if (this.#lost !== undefined) return this.#settleAll(this.#lost);
    const covered = this.#unsynced;
    this.#unsynced = [];
    this.#syncing = syncer.sync().then(
      () => {
        this.#syncing = undefined;
        for (const c of covered) this.#settle(c, undefined);
        this.#sync();
      },
      (err: unknown) => {
        this.#syncing = undefined;
        this.#lost = syncFailedError(err);
        this.#deps.health.lostDurability(this.#lost);
        this.#deps.log.error({ err }, 'fsync of the WAL failed: refusing every write until a restart');
        for (const c of covered) this.#settle(c, this.#lost);
        this.#settleAll(this.#lost);
      },
    );
  }

  #settleAll(failure: Error): void {
    const rest = this.#unsynced;
    this.#unsynced = [];
    for (const c of rest) this.#settle(c, failure);
  }

  #settle(c: Committed, failure: Error | undefined): void {
    this.#deps.settle(c.batch, c.result, failure);
    try {
      this.#deps.onCommit?.(c.batch.length, this.#deps.clock.monotonic() - c.started);
    } catch (err) {
      this.#deps.log.warn({ err }, 'onCommit hook failed');
    }
  }
}

function syncFailedError(err: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError(
    `storage is unavailable: the fsync of the database's WAL failed (${String((err as Error)?.message ?? err)}); writes since the last good fsync may not survive a power loss, so the server refuses writes until it is restarted (the restart recovers what is on disk)`,
    { cause: err },
  );
}
