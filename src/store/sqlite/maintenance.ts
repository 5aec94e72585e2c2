import type Database from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { Checkpointer } from './checkpointer.js';
import { checkpoint } from './database.js';

/** SQLite's default wal_autocheckpoint, restored when the checkpoint worker fails. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1_000;

export interface MaintenanceDeps {
  db: Database.Database;
  path: string;
  clock: Clock;
  log: Logger;
  /** One step of the store's upkeep on the event loop: change-log compaction and list-snapshot expiry. */
  compact(): void;
  /** No write waits and no list snapshot is open: a TRUNCATE checkpoint would wait for neither. */
  quiet(): boolean;
  /** The store's newest revision: unchanged since the last step means no write came in between. */
  revision(): number;
}

export interface MaintenanceOptions {
  intervalMs: number;
  /** Copy the WAL on a worker thread (checkpointer.ts); false checkpoints on the event loop. */
  checkpointOnWorker: boolean;
}

/**
 * The store's periodic upkeep: every interval of the store's clock, compaction on the event loop (small passes:
 * sqlite-store.ts bounds them), then a WAL checkpoint. The worker copies the WAL (the long part: at 2,000
 * renewals/s several MB a second, copied and the database file fsynced); then, on the event loop, a PASSIVE pass
 * copies the few frames written since (checkpointer.ts), so the next commit finds the WAL fully copied and starts
 * it over from the beginning (SQLite truncates it to journal_size_limit then, database.ts). Only a store that took
 * no write since the previous step, with no write waiting and no list snapshot open, gets TRUNCATE, which resets
 * the WAL file to zero bytes: under load it cost 48-76 ms on the event loop (BENCHMARKS.md section 26), and the
 * commits after it grow the file again. Without the worker, the event loop does it all: TRUNCATE whenever quiet.
 */
export class StoreMaintenance {
  readonly #deps: MaintenanceDeps;
  readonly #stop = new AbortController();
  readonly #loop: Promise<void>;
  /** The worker that copies the WAL; undefined when off or once it failed. */
  #checkpointer: Checkpointer | undefined;
  /** The checkpoint pass under way, if any. */
  #checkpointing: Promise<void> | undefined;
  /** The store's revision at the previous checkpoint step. */
  #revisionAtLastStep: number | undefined;

  constructor(deps: MaintenanceDeps, options: MaintenanceOptions) {
    this.#deps = deps;
    this.#checkpointer = options.checkpointOnWorker ? this.#startCheckpointer() : undefined;
    this.#loop = this.#run(options.intervalMs);
  }

  /** Stops the loop, lets a checkpoint pass under way finish, and stops the worker. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    await this.#checkpointing;
    await this.#checkpointer?.close();
  }

  async #run(intervalMs: number): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        await this.#deps.clock.sleep(intervalMs, signal);
      } catch {
        return;
      }
      try {
        this.#deps.compact();
      } catch (err) {
        this.#deps.log.warn({ err }, 'change-log compaction failed; retrying at the next interval');
      }
      // Not awaited: the cadence stays on the store's clock; a pass still running at the next tick is not doubled.
      this.#checkpointing ??= this.#checkpoint().finally(() => {
        this.#checkpointing = undefined;
      });
    }
  }

  async #checkpoint(): Promise<void> {
    const { db, log } = this.#deps;
    if (this.#checkpointer !== undefined) {
      try {
        await this.#checkpointer.run();
      } catch (err) {
        if (this.#stop.signal.aborted) return;
        log.warn({ err }, 'the WAL checkpoint worker failed; checkpointing on the event loop from now on');
        this.#checkpointer = undefined;
        db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
      }
    }
    if (this.#stop.signal.aborted) return;
    const revision = this.#deps.revision();
    const idle = this.#checkpointer === undefined || revision === this.#revisionAtLastStep;
    this.#revisionAtLastStep = revision;
    try {
      checkpoint(db, idle && this.#deps.quiet() ? 'TRUNCATE' : 'PASSIVE');
    } catch (err) {
      log.warn({ err }, 'WAL checkpoint failed; retrying at the next interval');
    }
  }

  /** With the worker, commits on the event loop never checkpoint by themselves (SQLite's auto-checkpoint). */
  #startCheckpointer(): Checkpointer | undefined {
    try {
      const checkpointer = new Checkpointer(this.#deps.path);
      this.#deps.db.pragma('wal_autocheckpoint = 0');
      return checkpointer;
    } catch (err) {
      this.#deps.log.warn({ err }, 'cannot start the WAL checkpoint worker; checkpointing on the event loop');
      return undefined;
    }
  }
}
