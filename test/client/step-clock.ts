import { abortError, type Clock } from '../../src/core/clock.js';

/**
 * A Clock whose sleeps end on the next event-loop turn, recording what was asked for and moving time on by
 * that much. For tests that talk to a real socket: backoffs cost no wall time, yet stay observable.
 */
export class StepClock implements Clock {
  readonly sleeps: number[] = [];
  #mono = 0;
  readonly #wallStart = Date.parse('2026-11-29T12:00:00.000Z');

  now(): number {
    return this.#wallStart + this.#mono;
  }

  monotonic(): number {
    return this.#mono;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    this.sleeps.push(ms);
    this.#mono += Math.max(0, ms);
    return new Promise<void>((resolve) => setImmediate(resolve));
  }
}
