import { setMaxListeners } from 'node:events';
import type { Clock } from '../core/clock.js';

/** Per-item exponential backoff of `addRateLimited` (client-go's ItemExponentialFailureRateLimiter). */
export interface ItemBackoff {
  /** Delay after the first failure (default 5 ms, client-go's). */
  baseMs: number;
  /** Longest delay (default 60 s; client-go's is 1000 s, far longer than a workload controller should sit idle). */
  maxMs: number;
}

export const DEFAULT_ITEM_BACKOFF: ItemBackoff = { baseMs: 5, maxMs: 60_000 };

/**
 * client-go's rate-limited work queue (`workqueue.NewTypedRateLimitingQueue`), reduced to what shepherd's workload
 * controllers use. Keys are de-duplicated while waiting; a key being processed is never handed out again until
 * `done`, and a key added meanwhile is queued again at `done` (so one object is never synced by two workers at
 * once, and a change that arrives during a sync is never lost). `addAfter` waits on the injected Clock;
 * `addRateLimited` waits `base × 2^failures` (capped) and `forget` resets the failures.
 */
export class WorkQueue<K> {
  readonly #clock: Clock;
  readonly #backoff: ItemBackoff;
  #queue: K[] = [];
  #head = 0;
  /** Keys that need processing: waiting in #queue, or to be queued again at `done`. */
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  /** Keys waiting for `addAfter`: the earliest time each is due (monotonic ms). */
  readonly #delayed = new Map<K, number>();
  readonly #failures = new Map<K, number>();
  readonly #stop = new AbortController();
  #waiters: Array<() => void> = [];

  constructor(clock: Clock, backoff: Partial<ItemBackoff> = {}) {
    this.#clock = clock;
    this.#backoff = { ...DEFAULT_ITEM_BACKOFF, ...backoff };
    // Every idle `get` waits on this signal (its listener removed on wake): any number of waiters is expected.
    setMaxListeners(0, this.#stop.signal);
  }

  /** Keys waiting to be handed out (not counting delayed or in-process ones). */
  get length(): number {
    return this.#queue.length - this.#head;
  }

  /** Keys waiting for an `addAfter` delay. */
  get delayed(): number {
    return this.#delayed.size;
  }

  get shuttingDown(): boolean {
    return this.#stop.signal.aborted;
  }

  add(key: K): void {
    if (this.shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#queue.push(key);
    this.#wakeOne();
  }

  /** Adds `key` after `ms`; an earlier pending `addAfter` of the same key wins, a later one is dropped. */
  addAfter(key: K, ms: number): void {
    if (this.shuttingDown) return;
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    const due = this.#clock.monotonic() + ms;
    const pending = this.#delayed.get(key);
    if (pending !== undefined && pending <= due) return;
    this.#delayed.set(key, due);
    this.#clock.sleep(ms, this.#stop.signal).then(
      () => {
        if (this.#delayed.get(key) !== due) return;
        this.#delayed.delete(key);
        this.add(key);
      },
      () => undefined,
    );
  }

  /** `addAfter` with the key's backoff, which doubles with every call until `forget`. */
  addRateLimited(key: K): void {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    this.addAfter(key, backoffDelay(this.#backoff, failures));
  }

  /** The key succeeded: its next `addRateLimited` starts from the base delay again. */
  forget(key: K): void {
    this.#failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }

  /**
   * The next key, marked as processing until `done(key)`; waits while the queue is empty. Resolves undefined once
   * the queue shuts down or `signal` aborts.
   */
  async get(signal?: AbortSignal): Promise<K | undefined> {
    while (this.length === 0) {
      if (this.shuttingDown || signal?.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          // Leave the list first: a stale waiter would swallow the wake-up meant for another worker.
          const i = this.#waiters.indexOf(wake);
          if (i >= 0) this.#waiters.splice(i, 1);
          signal?.removeEventListener('abort', wake);
          this.#stop.signal.removeEventListener('abort', wake);
          resolve();
        };
        this.#waiters.push(wake);
        signal?.addEventListener('abort', wake, { once: true });
        this.#stop.signal.addEventListener('abort', wake, { once: true });
      });
    }
    if (this.shuttingDown || signal?.aborted) return undefined;
    const key = this.#queue[this.#head++] as K;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#dirty.delete(key);
    this.#processing.add(key);
    return key;
  }

  /** Processing of `key` ended; if it was added meanwhile it is queued again now. */
  done(key: K): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key)) {
      this.#queue.push(key);
      this.#wakeOne();
    }
  }

  /** Stops handing out keys and cancels every delayed add; waiting `get`s resolve undefined. */
  shutDown(): void {
    this.#stop.abort();
    for (const w of [...this.#waiters]) w();
  }

  #wakeOne(): void {
    this.#waiters[0]?.();
  }
}

/** `base × 2^failures`, capped at max (client-go's ItemExponentialFailureRateLimiter.When). */
export function backoffDelay(backoff: ItemBackoff, failures: number): number {
  const exp = backoff.baseMs * 2 ** Math.min(failures, 62);
  return Math.min(exp, backoff.maxMs);
}

/**
 * Runs `workers` loops that take keys from `queue` and hand them to `sync` until `signal` aborts; a sync that
 * throws is retried with the key's backoff (`addRateLimited`), one that succeeds is forgotten. Resolves when every
 * worker has finished its current key.
 */
export async function runWorkers<K>(
  queue: WorkQueue<K>,
  workers: number,
  sync: (key: K) => Promise<void>,
  onError: (key: K, err: unknown) => void,
  signal: AbortSignal,
): Promise<void> {
  const count = Math.max(1, workers);
  // Idle workers wait on a signal of their own (one listener each, removed on wake), tied to `signal` by a single
  // listener: several controllers share one stop signal, and a listener per worker on it would trip Node's
  // leak warning where there is no leak.
  const local = new AbortController();
  setMaxListeners(count + 1, local.signal);
  const stop = (): void => local.abort();
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get(local.signal);
      if (key === undefined) return;
      try {
        await sync(key);
        queue.forget(key);
      } catch (err) {
        if (!signal.aborted) {
          onError(key, err);
          queue.addRateLimited(key);
        }
      } finally {
        queue.done(key);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: count }, worker));
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
