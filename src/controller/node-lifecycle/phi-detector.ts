/**
 * The phi-accrual failure detector (Hayashibara et al., "The φ accrual failure detector", 2004) as Akka computes it
 * (https://github.com/akka/akka/blob/main/akka-remote/src/main/scala/akka/remote/PhiAccrualFailureDetector.scala):
 * phi = -log10(P(a heartbeat arrives later than t)), with the tail of the normal distribution approximated by a
 * logistic function (Bowling et al. 2009), so phi 8 means a one in 10^8 chance that a live node's next heartbeat
 * would still come. Times are milliseconds (docs/node-lifecycle.md#phi-detector).
 */

/** phi is capped here: it grows without bound (and reaches Infinity in floating point) for a long silence. */
export const PHI_CAP = 1000;

/**
 * Akka's `phi(timeDiff, mean, stdDeviation)`: `mean` already includes the acceptable pause and `stdDeviation` the
 * minimum. Never negative, never above PHI_CAP.
 */
export function phi(elapsedMs: number, meanMs: number, stdDeviationMs: number): number {
  const y = (elapsedMs - meanMs) / stdDeviationMs;
  const e = Math.exp(-y * (1.5976 + 0.070566 * y * y));
  const p = elapsedMs > meanMs ? -Math.log10(e / (1 + e)) : -Math.log10(1 - 1 / (1 + e));
  if (!(p >= 0)) return p === 0 ? 0 : PHI_CAP;
  return Math.min(p, PHI_CAP);
}

/**
 * The y (standard deviations past the mean) at which phi reaches `threshold`: the silence after which a node is
 * judged is then `mean + y × stdDeviation`, computed once per heartbeat instead of phi once per pass.
 * Solves y·(1.5976 + 0.070566·y²) = −ln(10^−T / (1 − 10^−T)) (monotonic in y) by bisection.
 */
export function phiDeviations(threshold: number): number {
  const q = 10 ** -threshold;
  const k = -Math.log(q / (1 - q));
  if (!(k > 0)) return 0;
  let lo = 0;
  let hi = 64;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (mid * (1.5976 + 0.070566 * mid * mid) < k) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * A sliding window of the last `capacity` heartbeat intervals with running sums (Akka's HeartbeatHistory): mean and
 * variance in O(1), one Float64Array per node.
 */
export class IntervalWindow {
  readonly #samples: Float64Array;
  #next = 0;
  #count = 0;
  #sum = 0;
  #squares = 0;

  constructor(capacity: number) {
    this.#samples = new Float64Array(Math.max(1, Math.floor(capacity)));
  }

  get size(): number {
    return this.#count;
  }

  add(intervalMs: number): void {
    const cap = this.#samples.length;
    if (this.#count === cap) {
      const old = this.#samples[this.#next] as number;
      this.#sum -= old;
      this.#squares -= old * old;
    } else this.#count++;
    this.#samples[this.#next] = intervalMs;
    this.#sum += intervalMs;
    this.#squares += intervalMs * intervalMs;
    this.#next = (this.#next + 1) % cap;
  }

  clear(): void {
    this.#next = this.#count = this.#sum = this.#squares = 0;
  }

  mean(): number {
    return this.#count === 0 ? 0 : this.#sum / this.#count;
  }

  /** Population standard deviation, as Akka's (never negative despite rounding in the running sums). */
  stdDeviation(): number {
    if (this.#count === 0) return 0;
    const m = this.mean();
    return Math.sqrt(Math.max(0, this.#squares / this.#count - m * m));
  }
}
