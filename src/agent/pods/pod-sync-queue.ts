import { backoffCeiling, type BackoffPolicy } from '../../client/backoff.js';
import type { Clock } from '../../core/clock.js';

/** What the queue syncs: a pod worker's status write or deletion. */
export interface Syncable {
  /** Writes what is due; 'retry' when the API could not be reached or refused for now. */
  flush(): Promise<'done' | 'retry'>;
}

/** Status writes and deletions in flight at once, per agent (the kubelet's status manager writes one at a time). */
export const SYNC_CONCURRENCY = 4;
/** Waits before retrying after failures: 200 ms doubling to 30 s, one timer for every waiting pod. */
export const SYNC_RETRY: BackoffPolicy = { initialMs: 200, maxMs: 30_000 };

/**
 * The agent's queue of pods whose status or deletion is due (the kubelet's status manager). A few API calls at a
 * time, so a restarted agent with many pods, or a fleet of agents, does not open hundreds of requests at once; and
 * one backoff timer for every pod whose call failed, so a partitioned agent retries as one, not once per pod.
 */
export class PodSyncQueue {
  readonly #clock: Clock;
  readonly #signal: AbortSignal;
  /** Waiting for a slot, in order; `#queued` says what is in it (a Set's iteration from the front slows as it churns). */
  #pending: Syncable[] = [];
  #head = 0;
  readonly #queued = new Set<Syncable>();
  readonly #failed = new Set<Syncable>();
  #active = 0;
  #failures = 0;
  #timer = false;

  constructor(clock: Clock, signal: AbortSignal) {
    this.#clock = clock;
    this.#signal = signal;
  }

  add(item: Syncable): void {
    if (this.#signal.aborted || this.#queued.has(item)) return;
    this.#queued.add(item);
    this.#pending.push(item);
    this.#pump();
  }

  /** Items waiting for a slot or for the retry timer. */
  get size(): number {
    return this.#queued.size + this.#failed.size;
  }

  #pump(): void {
    while (this.#active < SYNC_CONCURRENCY && this.#head < this.#pending.length && !this.#signal.aborted) {
      const item = this.#pending[this.#head++] as Syncable;
      this.#queued.delete(item);
      if (this.#head === this.#pending.length) {
        this.#pending = [];
        this.#head = 0;
      }
      this.#active++;
      void item
        .flush()
        .then(
          (result) => this.#settled(item, result),
          () => this.#settled(item, 'retry'),
        )
        .finally(() => {
          this.#active--;
          this.#pump();
        });
    }
  }

  #settled(item: Syncable, result: 'done' | 'retry'): void {
    if (result === 'done') {
      this.#failures = 0;
      return;
    }
    this.#failed.add(item);
    if (this.#timer) return;
    this.#timer = true;
    const wait = backoffCeiling(SYNC_RETRY, this.#failures++);
    this.#clock.sleep(wait, this.#signal).then(
      () => {
        this.#timer = false;
        const again = [...this.#failed];
        this.#failed.clear();
        for (const i of again) this.add(i);
      },
      () => {},
    );
  }
}
