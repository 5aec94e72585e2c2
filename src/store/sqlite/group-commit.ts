import type Database from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import { storeClosedError } from '../../core/errors.js';
import type { AnyObject } from '../../core/kinds.js';
import type { Logger } from '../../core/logger.js';
import type { DeltaBases } from './change-log.js';
import type { Statements } from './statements.js';
import { storageError, type StoreHealth } from './store-health.js';
import { applyBatch, type BatchResult, type PendingWrite, type WriteOp } from './write-batch.js';

export interface GroupCommitDeps {
  db: Database.Database;
  stmts: Statements;
  bases: DeltaBases;
  clock: Clock;
  log: Logger;
  health: StoreHealth;
  /** The newest committed revision, the base of the next batch's revisions. */
  revision(): number;
  /**
   * Right after the transaction (fsynced: `synchronous = FULL`, database.ts), in the same synchronous step: the store
   * moves its revision and caches on, publishes the changes and answers each write.
   */
  committed(batch: PendingWrite[], result: BatchResult): void;
  /** For the commit-latency / batch-size metrics. */
  onCommit?: ((batchSize: number, durationMs: number) => void) | undefined;
}

/**
 * Group commit: every write queued in one event-loop turn is applied in one fsynced transaction at setImmediate,
 * each with its own outcome, in call order. (Syncing the WAL on libuv's thread pool instead, with COMMIT at
 * `synchronous = NORMAL`, was measured and made a 25,000-node fleet's renewals slower here: BENCHMARKS.md section 23.)
 */
export class GroupCommit {
  readonly #deps: GroupCommitDeps;
  #queue: PendingWrite[] = [];
  #scheduled: NodeJS.Immediate | undefined;
  #closed = false;
  readonly #apply: (batch: PendingWrite[], revision: number, now: number) => BatchResult;

  constructor(deps: GroupCommitDeps) {
    this.#deps = deps;
    const { db, stmts, bases } = deps;
    // Built once: better-sqlite3's transaction() makes a new wrapper (four variants) on every call.
    this.#apply = db.transaction((batch: PendingWrite[], revision: number, now: number) =>
      applyBatch({ stmts, bases }, batch, revision, now),
    );
  }

  /** Writes queued and not yet committed (maintenance's TRUNCATE waits for a quiet moment). */
  get queued(): number {
    return this.#queue.length;
  }

  enqueue(op: WriteOp): Promise<AnyObject> {
    if (this.#closed) return Promise.reject(storeClosedError());
    return new Promise<AnyObject>((resolve, reject) => {
      this.#queue.push({ ...op, resolve, reject });
      this.#scheduled ??= setImmediate(() => this.#commit());
    });
  }

  /** Commits what is queued and refuses later writes. */
  close(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#commit();
    this.#closed = true;
  }

  #commit(): void {
    this.#scheduled = undefined;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    const { clock, health, log } = this.#deps;
    const started = clock.monotonic();
    let result: BatchResult;
    try {
      result = this.#apply(batch, this.#deps.revision(), clock.now());
    } catch (err) {
      const failure = storageError(err);
      health.failed(err);
      log.error({ err, batchSize: batch.length }, 'commit failed; every write of the batch was refused');
      for (const w of batch) w.reject(failure);
      return;
    }
    health.succeeded();
    this.#deps.committed(batch, result);
    try {
      this.#deps.onCommit?.(batch.length, clock.monotonic() - started);
    } catch (err) {
      log.warn({ err }, 'onCommit hook failed');
    }
  }
}
