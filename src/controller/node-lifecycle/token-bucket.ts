import type { Clock } from '../../core/clock.js';

/**
 * client-go `flowcontrol.RateLimiter`, reduced to what the node lifecycle controller uses: a non-blocking
 * `TryAccept` and the configured rate (`SwapLimiter` compares rates to decide whether to keep a bucket).
 */
export interface RateLimiter {
  /** Takes one token if one is available now; never waits. */
  tryAccept(): boolean;
  /** The refill rate in tokens per second (0 for the never-accepting limiter). */
  qps(): number;
  /** What the limiter holds now, for the taint ETA (taint-eta.ts); reads the clock, changes nothing. */
  state(): BucketState;
}

/** A token bucket at one instant: tokens available now, refill rate (tokens/s) and capacity. */
export interface BucketState {
  tokens: number;
  qps: number;
  burst: number;
}

/**
 * Slack for float rounding when tokens are computed from millisecond timestamps: without it, a refill that
 * is exactly due (e.g. 3 × (1000/3) ms at 1 qps) can come out as 0.9999999999 tokens and slip by a whole tick.
 * A millisecond early is qps/1000 tokens short, orders of magnitude above this.
 */
const TOKEN_EPSILON = 1e-9;

/**
 * `flowcontrol.NewTokenBucketRateLimiter(qps, burst)`, i.e. golang.org/x/time/rate: tokens refill continuously
 * at `qps` per second up to `burst`, and the bucket starts FULL. A refused `tryAccept` changes nothing (rate's
 * `reserveN` only commits state when it grants). Time comes from `clock.monotonic()`, so wall-clock jumps
 * neither refill nor drain the bucket.
 */
export class TokenBucket implements RateLimiter {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number, clock: Clock) {
    if (Number.isNaN(qps)) throw new RangeError('TokenBucket: qps must be a number; pass a rate in tokens per second');
    if (!Number.isFinite(burst) || burst < 0) {
      throw new RangeError(`TokenBucket: burst must be a finite number >= 0, got ${burst}`);
    }
    this.#qps = qps;
    this.#burst = Math.floor(burst);
    this.#clock = clock;
    this.#tokens = this.#burst;
    this.#last = clock.monotonic();
  }

  tryAccept(): boolean {
    // rate.Inf grants every request regardless of burst, as x/time/rate does.
    if (this.#qps === Number.POSITIVE_INFINITY) return true;
    const now = this.#clock.monotonic();
    const tokens = this.#available(now);
    if (tokens + TOKEN_EPSILON < 1) return false;
    this.#tokens = Math.max(0, tokens - 1);
    this.#last = Math.max(now, this.#last);
    return true;
  }

  qps(): number {
    return this.#qps;
  }

  /** Tokens available at `now` (for metrics and tests); never above burst. */
  tokens(): number {
    return this.#available(this.#clock.monotonic());
  }

  state(): BucketState {
    return { tokens: this.tokens(), qps: this.#qps, burst: this.#burst };
  }

  #available(now: number): number {
    // A clock that reads earlier than the last grant refills nothing (rate's advance() clamps the same way).
    const elapsedMs = Math.max(0, now - this.#last);
    const refill = this.#qps > 0 ? (elapsedMs * this.#qps) / 1000 : 0;
    return Math.min(this.#burst, this.#tokens + refill);
  }
}

/** `flowcontrol.NewFakeNeverRateLimiter()`: what a zone queue gets for a rate <= 0 (tainting stopped). */
export const neverRateLimiter: RateLimiter = Object.freeze({
  tryAccept: () => false,
  qps: () => 0,
  state: (): BucketState => ({ tokens: 0, qps: 0, burst: 0 }),
});

/** The controller's constructor rule for a zone's limiter: a rate <= 0 means "never", anything else a bucket. */
export function newRateLimiter(qps: number, burst: number, clock: Clock): RateLimiter {
  if (!(qps > 0)) return neverRateLimiter;
  return new TokenBucket(qps, burst, clock);
}
