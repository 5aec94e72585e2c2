import type { Clock } from '../core/clock.js';

/**
 * Spaces out agent starts: at most `perSecond` a second, first one at once. Registration costs the server
 * three durable writes and a status post per node, so 50,000 agents started in one tick would measure the
 * server's queueing, not its steady state; and a `restore` after a long cut would stampede the same way.
 * Spaced starts also spread the renewal phases (each agent renews one interval after it registered).
 */
export class Pacer {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  #next = Number.NEGATIVE_INFINITY;

  constructor(clock: Clock, perSecond: number) {
    if (!(perSecond > 0)) throw new Error(`the start rate must be positive, not ${perSecond}`);
    this.#clock = clock;
    this.#intervalMs = 1000 / perSecond;
  }

  /** Reserves the next slot and waits for it; slots are handed out in call order. */
  async slot(signal: AbortSignal): Promise<void> {
    const now = this.#clock.monotonic();
    const at = Math.max(now, this.#next + this.#intervalMs);
    this.#next = at;
    if (at > now) await this.#clock.sleep(at - now, signal);
  }
}
