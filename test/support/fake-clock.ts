import { abortError, type Clock } from '../../src/core/clock.js';

interface Sleeper {
  at: number;
  seq: number;
  resolve: () => void;
  reject: (e: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * A Clock that only moves when a test says so. `advance(ms)` wakes sleepers in time order and lets the
 * promise jobs they start run before moving on, so async loops step deterministically.
 */
export class FakeClock implements Clock {
  #wall: number;
  #mono = 0;
  #seq = 0;
  #sleepers: Sleeper[] = [];

  constructor(startWallMs = Date.parse('2026-11-29T12:00:00.000Z')) {
    this.#wall = startWallMs;
  }

  now(): number {
    return this.#wall;
  }

  monotonic(): number {
    return this.#mono;
  }

  /** Steps the wall clock alone (an NTP jump); monotonic time is unaffected. */
  jumpWall(ms: number): void {
    this.#wall += ms;
  }

  get pendingSleepers(): number {
    return this.#sleepers.length;
  }

  /** Time of the earliest pending sleeper, relative to now (undefined when none). */
  nextWakeIn(): number | undefined {
    if (this.#sleepers.length === 0) return undefined;
    return Math.min(...this.#sleepers.map((s) => s.at)) - this.#mono;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      const s: Sleeper = {
        at: this.#mono + Math.max(0, ms),
        seq: this.#seq++,
        resolve,
        reject,
        signal,
        onAbort: undefined,
      };
      if (signal) {
        s.onAbort = () => {
          this.#sleepers = this.#sleepers.filter((x) => x !== s);
          reject(abortError(signal));
        };
        signal.addEventListener('abort', s.onAbort, { once: true });
      }
      this.#sleepers.push(s);
    });
  }

  /**
   * Moves time forward by ms at once, as a synchronous step that takes time would (a write, in a test of how long a
   * pass may take): no sleeper wakes here; those now due wake at the next `advance`.
   */
  elapse(ms: number): void {
    this.#wall += ms;
    this.#mono += ms;
  }

  /** Moves time forward by ms, waking every sleeper due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#mono + ms;
    await flush();
    for (;;) {
      const due = this.#sleepers.filter((s) => s.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.#sleepers = this.#sleepers.filter((s) => s !== due);
      this.#wall += due.at - this.#mono;
      this.#mono = due.at;
      if (due.signal && due.onAbort) due.signal.removeEventListener('abort', due.onAbort);
      due.resolve();
      await flush();
    }
    this.#wall += target - this.#mono;
    this.#mono = target;
    await flush();
  }
}

/** Lets pending promise jobs (and one macrotask turn) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}
