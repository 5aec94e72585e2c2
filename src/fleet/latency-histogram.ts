/**
 * A fixed-memory latency histogram: log-spaced buckets 2% apart from 10 µs to ~2 minutes, so a fleet of
 * 50,000 agents renewing for hours costs a few kilobytes and a percentile is at most 2% above the truth.
 * Quantiles report the bucket's upper bound (never optimistic).
 */
const MIN_MS = 0.01;
const RATIO = 1.02;
const BUCKETS = Math.ceil(Math.log(120_000 / MIN_MS) / Math.log(RATIO)) + 1;
const LOG_RATIO = Math.log(RATIO);

export class LatencyHistogram {
  readonly #counts = new Float64Array(BUCKETS);
  #count = 0;
  #max = 0;

  record(ms: number): void {
    const v = Math.max(ms, 0);
    const i = v <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(v / MIN_MS) / LOG_RATIO));
    this.#counts[i] = (this.#counts[i] ?? 0) + 1;
    this.#count++;
    if (v > this.#max) this.#max = v;
  }

  get count(): number {
    return this.#count;
  }

  get max(): number {
    return this.#max;
  }

  /** The q-quantile (0 < q ≤ 1) in ms; 0 when empty. */
  quantile(q: number): number {
    if (this.#count === 0) return 0;
    const rank = Math.ceil(q * this.#count);
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.#counts[i] ?? 0;
      if (seen >= rank) return Math.min(MIN_MS * RATIO ** i, this.#max);
    }
    return this.#max;
  }

  reset(): void {
    this.#counts.fill(0);
    this.#count = 0;
    this.#max = 0;
  }
}
