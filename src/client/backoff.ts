import type { Random } from '../core/random.js';

/** Every backoff of the clients and the agent: delays double from `initialMs` up to `maxMs`. */
export interface BackoffPolicy {
  /** The first delay (the ceiling of the first, for the jittered ones). */
  initialMs: number;
  maxMs: number;
}

/**
 * "Full jitter" exponential backoff (AWS architecture blog): a uniform delay in [0, min(max, initial·2^n)).
 * Spreads the retries of many clients that failed together, so a restarted server is not stampeded.
 */
export function fullJitterDelay(policy: BackoffPolicy, attempt: number, random: Random): number {
  return Math.floor(random.next() * backoffCeiling(policy, attempt));
}

/**
 * Reconnect delays for long-running loops (informer, watch resume): doubling from initialMs to maxMs, each
 * delay drawn from [d/2, d) so a loop never spins hot, as the kubernetes client's ListWatch does (1 s → 30 s).
 */
export class ReconnectBackoff {
  readonly #policy: BackoffPolicy;
  readonly #random: Random;
  #attempt = 0;

  constructor(policy: BackoffPolicy, random: Random) {
    this.#policy = policy;
    this.#random = random;
  }

  next(): number {
    const ceiling = backoffCeiling(this.#policy, this.#attempt);
    this.#attempt++;
    return Math.floor(ceiling / 2 + (this.#random.next() * ceiling) / 2);
  }

  reset(): void {
    this.#attempt = 0;
  }
}

/** The delay of retry `attempt` (from 0) before any jitter: initialMs·2^attempt, at most maxMs. */
export function backoffCeiling(policy: BackoffPolicy, attempt: number): number {
  // 2^attempt overflows to Infinity long before it matters; Math.min keeps it at maxMs.
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, attempt));
}
