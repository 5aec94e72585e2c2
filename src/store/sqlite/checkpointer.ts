import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Passes the worker makes per run at most, and the frames a pass may copy and still be the last. */
export const MAX_PASSES = 4;
export const SMALL_TAIL = 64;

/** What the last `PRAGMA wal_checkpoint` pass of a run did (SQLite's result row). */
export interface CheckpointResult {
  /** The pass could not finish (a reader or a checkpoint elsewhere held frames); the next pass continues. */
  busy: boolean;
  /** Frames in the WAL when the pass ran. */
  logFrames: number;
  /** Of those, frames now copied into the database file. */
  checkpointedFrames: number;
}

// The worker's whole program: its own connection to the same file, PASSIVE passes per message. PASSIVE never takes
// the writer lock, so the event loop's writes go on while the pages are copied and the database file fsynced. A
// pass copies what the WAL held when it began; what was written meanwhile is the next pass's, so passes follow each
// other until one copies at most SMALL_TAIL frames (or MAX_PASSES ran): the event loop's own step after them
// (maintenance.ts) then copies only a few frames. One pass left it the whole second's writes: at 2,500 renewals/s
// that step held the event loop 40-90 ms every second (BENCHMARKS.md section 26).
// Kept as source text (an eval worker) so it runs the same from dist/ and under tsx in the tests.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const MAX_PASSES = ${MAX_PASSES};
const SMALL_TAIL = ${SMALL_TAIL};
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
db.pragma('wal_autocheckpoint = 0');
// The WAL's frame count and copied frames after the last pass; a count that went down means the WAL restarted.
let last = { log: 0, checkpointed: 0 };
function pass() {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)');
  const copied = row.checkpointed - (row.log < last.log ? 0 : last.checkpointed);
  last = { log: row.log, checkpointed: row.checkpointed };
  return { row, copied };
}
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    let p = pass();
    for (let n = 1; n < MAX_PASSES && p.row.busy === 0 && p.copied > SMALL_TAIL; n++) p = pass();
    parentPort.postMessage({ busy: p.row.busy === 1, logFrames: p.row.log, checkpointedFrames: p.row.checkpointed });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});
`;

type Reply = CheckpointResult | { error: string };

/**
 * Copies the WAL into the database file on a worker thread. On the event loop the same copy stalled every request
 * for as long as it took (tens to hundreds of ms once a large fleet writes megabytes of WAL a second); here the
 * event loop only waits for the worker's answer. One pass at a time; a worker that fails rejects the pass and every
 * later one, and the store falls back to checkpointing itself (sqlite-store.ts).
 */
export class Checkpointer {
  readonly #worker: Worker;
  #pending: { resolve: (r: CheckpointResult) => void; reject: (err: Error) => void } | undefined;
  #failed: Error | undefined;

  constructor(path: string) {
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, path } });
    // Idle, never what keeps a process alive (a store left open must not hang its process); referenced while a
    // pass or the close is awaited, so whoever awaits it is not left with an empty event loop.
    this.#worker.unref();
    this.#worker.on('message', (reply: Reply) => {
      const pending = this.#pending;
      this.#pending = undefined;
      this.#worker.unref();
      if ('error' in reply) pending?.reject(new Error(`WAL checkpoint on the worker failed: ${reply.error}`));
      else pending?.resolve(reply);
    });
    this.#worker.on('error', (err) =>
      this.#fail(new Error(`the WAL checkpoint worker failed: ${err.message}`, { cause: err })),
    );
    this.#worker.on('exit', (code) => this.#fail(new Error(`the WAL checkpoint worker exited (code ${code})`)));
  }

  /** PASSIVE checkpoint passes on the worker until the WAL's uncopied tail is small (WORKER_SOURCE). */
  run(): Promise<CheckpointResult> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#pending) return Promise.reject(new Error('a WAL checkpoint pass is already running'));
    return new Promise<CheckpointResult>((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#worker.ref();
      this.#worker.postMessage('checkpoint');
    });
  }

  /** Closes the worker's connection (the store's own stays the last one, which ends with a TRUNCATE) and stops it. */
  async close(): Promise<void> {
    if (this.#failed) return;
    const exited = once(this.#worker, 'exit');
    this.#worker.ref();
    this.#worker.postMessage('close');
    this.#fail(new Error('the WAL checkpointer is closed'));
    await exited;
  }

  #fail(err: Error): void {
    this.#failed ??= err;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(err);
  }
}
