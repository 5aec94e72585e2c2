import type { Clock } from '../core/clock.js';
import { MASTERS_GROUP, nodeNameOf, type Subject } from './authorization.js';

/** Requests per second refilled into a bucket holding at most `burst`; qps 0 means unlimited. */
export interface RateLimit {
  qps: number;
  burst: number;
}

/**
 * Per-identity limits. Node identities renew a lease every few seconds and post status: one generous bucket
 * for all their requests. Masters (the remote node lifecycle controller) must never be throttled into missing
 * a grace period, so they default to unlimited. Everyone else (people with sheepctl) get separate read and
 * write buckets, writes the tighter.
 */
export interface RateLimits {
  master: RateLimit;
  node: RateLimit;
  userRead: RateLimit;
  userWrite: RateLimit;
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  master: { qps: 0, burst: 0 },
  node: { qps: 20, burst: 40 },
  userRead: { qps: 50, burst: 100 },
  userWrite: { qps: 10, burst: 20 },
};

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number; limit: RateLimit; what: string };

interface Bucket {
  tokens: number;
  at: number;
}

const OK: RateDecision = { ok: true };

/**
 * Token buckets keyed by (class, user name). Only authenticated identities get a bucket, so the map is bounded
 * by the token file; no timers: a bucket refills lazily from the Clock's monotonic time when next used.
 */
export class IdentityRateLimiter {
  readonly #limits: RateLimits;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limits: RateLimits, clock: Clock) {
    this.#limits = limits;
    this.#clock = clock;
  }

  take(subject: Subject, write: boolean): RateDecision {
    const [cls, what] = this.#classOf(subject, write);
    const limit = this.#limits[cls];
    if (limit.qps <= 0) return OK;
    const key = `${cls}\u0000${subject.user}`;
    const now = this.#clock.monotonic();
    const burst = Math.max(1, limit.burst);
    const bucket = this.#buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.qps);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return OK;
    }
    const waitSeconds = (1 - bucket.tokens) / limit.qps;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)), limit, what };
  }

  #classOf(subject: Subject, write: boolean): [keyof RateLimits, string] {
    if (subject.groups.includes(MASTERS_GROUP)) return ['master', 'requests'];
    if (nodeNameOf(subject) !== undefined) return ['node', 'requests'];
    return write ? ['userWrite', 'writes'] : ['userRead', 'reads'];
  }
}
