import type { Clock } from '../core/clock.js';
import { TooManyRequestsError } from '../core/errors.js';
import { MASTERS_GROUP, nodeNameOf, type Subject } from './authorization.js';
import type { EventTally } from './event-tally.js';

/** Kubernetes' EventRateLimit admission (per user) and a bound on what one node's Events may hold. */
export interface EventLimits {
  /** Events one identity (other than system:masters) may create per minute, all at once at most; 0: unlimited. */
  perMinute: number;
  /** Bytes (stored JSON) the Events of one node may hold before that node may create no more; 0: unlimited. */
  maxBytesPerNode: number;
}

export const DEFAULT_EVENT_LIMITS: EventLimits = { perMinute: 60, maxBytesPerNode: 1024 * 1024 };

/** How long a node over its byte limit is told to wait: its Events expire one by one over --event-ttl. */
const BYTES_RETRY_SECONDS = 60;
/** Identities tracked at most (only authenticated ones get a bucket, so this bounds a huge token file only). */
const MAX_BUCKETS = 100_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Admission of Event creates by authenticated identities other than system:masters (the control plane's own
 * Events are paced by its recorder): a token bucket of `perMinute` per identity, and a node whose Events already
 * hold `maxBytesPerNode` may add no more until some expire. Both answer 429 with Retry-After.
 */
export class EventQuota {
  readonly #limits: EventLimits;
  readonly #clock: Clock;
  readonly #tally: EventTally | undefined;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limits: EventLimits, clock: Clock, tally: EventTally | undefined) {
    this.#limits = limits;
    this.#clock = clock;
    this.#tally = tally;
  }

  /** Throws TooManyRequestsError when `subject` may not create an Event now (check after authorization). */
  admit(subject: Subject): void {
    if (subject.groups.includes(MASTERS_GROUP)) return;
    this.#checkBytes(subject);
    this.#take(subject.user);
  }

  /** Only node identities write Events besides masters (authorization.ts), and theirs count against the node. */
  #checkBytes(subject: Subject): void {
    const max = this.#limits.maxBytesPerNode;
    const node = nodeNameOf(subject);
    if (max <= 0 || this.#tally === undefined || node === undefined) return;
    const held = this.#tally.bytesOf(node);
    if (held < max) return;
    throw new TooManyRequestsError(
      `the Events of node "${node}" already hold ${held} bytes, the limit (--max-event-bytes-per-node ${max}): new ones are refused until old ones expire (--event-ttl)`,
      BYTES_RETRY_SECONDS,
    );
  }

  #take(user: string): void {
    const perMinute = this.#limits.perMinute;
    if (perMinute <= 0) return;
    const now = this.#clock.monotonic();
    const bucket = this.#buckets.get(user) ?? { tokens: perMinute, at: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + ((now - bucket.at) / 60_000) * perMinute);
    bucket.at = now;
    this.#buckets.delete(user);
    this.#buckets.set(user, bucket);
    if (this.#buckets.size > MAX_BUCKETS) this.#buckets.delete(this.#buckets.keys().next().value as string);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retry = Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / perMinute));
    throw new TooManyRequestsError(
      `user "${user}" created more than ${perMinute} Events in a minute (--events-per-minute): retry after ${retry}s`,
      retry,
    );
  }
}
