import type { Clock } from '../../core/clock.js';

/** kube-scheduler's podInitialBackoffSeconds and podMaxBackoffSeconds. */
export const POD_INITIAL_BACKOFF_MS = 1_000;
export const POD_MAX_BACKOFF_MS = 10_000;

/** The backoff after `attempts` failed attempts: 1 s, 2 s, 4 s, 8 s, then 10 s (kube-scheduler's calculateBackoffDuration). */
export function podBackoffMs(attempts: number, initialMs = POD_INITIAL_BACKOFF_MS, maxMs = POD_MAX_BACKOFF_MS): number {
  if (attempts <= 0) return 0;
  return Math.min(maxMs, initialMs * 2 ** Math.min(attempts - 1, 30));
}

/**
 * Per pod: how many scheduling attempts failed and until when (monotonic ms) it backs off. A pod is never tried
 * again before its backoff ends, whatever wakes it up, so no pod is retried in a loop.
 */
export class PodBackoff {
  readonly #clock: Clock;
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #pods = new Map<string, { attempts: number; until: number }>();

  constructor(clock: Clock, initialMs = POD_INITIAL_BACKOFF_MS, maxMs = POD_MAX_BACKOFF_MS) {
    this.#clock = clock;
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
  }

  /** Records a failed attempt; answers the backoff it starts. */
  fail(key: string): number {
    const attempts = (this.#pods.get(key)?.attempts ?? 0) + 1;
    const ms = podBackoffMs(attempts, this.#initialMs, this.#maxMs);
    this.#pods.set(key, { attempts, until: this.#clock.monotonic() + ms });
    return ms;
  }

  /** Milliseconds of backoff left (0 when none). */
  remaining(key: string): number {
    const b = this.#pods.get(key);
    return b === undefined ? 0 : Math.max(0, b.until - this.#clock.monotonic());
  }

  attempts(key: string): number {
    return this.#pods.get(key)?.attempts ?? 0;
  }

  /** The pod was bound or is gone. */
  clear(key: string): void {
    this.#pods.delete(key);
  }
}
