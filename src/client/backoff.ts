import type { Random } from '../core/random.js';

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/**
 * "Full jitter" exponential backoff (AWS architecture blog): a uniform delay in [0, min(max, initial·2^n)).
 * Spreads the retries of many clients that failed together, so a restarted server is not stampeded.
 */
export function fullJitterDelay(policy: BackoffPolicy, attempt: number, random: Random): number {
  return Math.floor(random.next() * ceilingFor(policy, attempt));
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
    const ceiling = ceilingFor(this.#policy, this.#attempt);
    this.#attempt++;
    return Math.floor(ceiling / 2 + (this.#random.next() * ceiling) / 2);
  }

  reset(): void {
    this.#attempt = 0;
  }
}

function ceilingFor(policy: BackoffPolicy, attempt: number): number {
  // 2^attempt overflows to Infinity long before it matters; Math.min keeps it at maxMs.
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, attempt));
}
