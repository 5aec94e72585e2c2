import type { Clock } from '../../core/clock.js';
import { neverRateLimiter, TokenBucket, type BucketState, type RateLimiter } from './token-bucket.js';

/** `TimedValue` (rate_limited_queue.go): a node name queued for the NoExecute taint. Times are monotonic ms. */
export interface TimedValue {
  value: string;
  uid: string;
  addedAt: number;
  processAt: number;
}

/** What the tainter callback reports: done, or "retry me after retryAfterMs" (upstream's `(bool, time.Duration)`). */
export type TryResult = { done: true } | { done: false; retryAfterMs: number };

/** `EvictionRateLimiterBurst`: every bucket `swapLimiter` builds holds at most one token. */
export const EVICTION_RATE_LIMITER_BURST = 1;

/**
 * Upstream requeues with `now + wait + 1ns`, so a retried item is strictly later than `now + wait` and never
 * due on a tick that lands exactly on it. 1 ns expressed in our millisecond clock.
 */
const REQUEUE_SLACK_MS = 1e-6;

interface Entry {
  item: TimedValue;
  /**
   * Insertion order: breaks processAt ties so items added in one pass come out in add order
   * (docs/node-lifecycle.md#d7-sorted-iteration).
   */
  seq: number;
}

/**
 * `UniqueQueue` (rate_limited_queue.go): items ordered by processAt, plus a set of every value that was added
 * and not yet `remove`d. The set outlives the heap entry: after the tainter finishes a node it stays in the set,
 * so further `add`s are no-ops until the controller calls `remove` (node healthy again, or its taint vanished).
 * Kept as a sorted array rather than a heap: zones hold at most thousands of nodes and the order is then
 * directly inspectable.
 */
export class UniqueQueue {
  #entries: Entry[] = [];
  #set = new Set<string>();
  #seq = 0;

  /** `Add`: false (and nothing changes) when the value is already in the set. */
  add(item: TimedValue): boolean {
    if (this.#set.has(item.value)) return false;
    this.#set.add(item.value);
    this.#insert({ ...item });
    return true;
  }

  /** `Replace`: reschedules the value only while it is still in the heap (a no-op once removed). */
  replace(item: TimedValue): boolean {
    const i = this.#indexOf(item.value);
    if (i < 0) return false;
    this.#entries.splice(i, 1);
    this.#insert({ ...item });
    return true;
  }

  /** `RemoveFromQueue`: drops the value from the heap but keeps it in the set, which blocks re-adding. */
  removeFromQueue(value: string): boolean {
    if (!this.#set.has(value)) return false;
    const i = this.#indexOf(value);
    if (i < 0) return false;
    this.#entries.splice(i, 1);
    return true;
  }

  /** `Remove`: forgets the value entirely (set and heap); false when it was not in the set. */
  remove(value: string): boolean {
    if (!this.#set.delete(value)) return false;
    const i = this.#indexOf(value);
    if (i >= 0) this.#entries.splice(i, 1);
    return true;
  }

  /** `Head`: a copy of the earliest item, or undefined when the heap is empty. */
  head(): TimedValue | undefined {
    const first = this.#entries[0];
    return first ? { ...first.item } : undefined;
  }

  has(value: string): boolean {
    return this.#set.has(value);
  }

  clear(): void {
    this.#entries = [];
    this.#set.clear();
  }

  /** Items in the heap (not the set). */
  size(): number {
    return this.#entries.length;
  }

  values(): string[] {
    return this.#entries.map((e) => e.item.value);
  }

  /** Copies of the first `limit` heap items (all by default) in processAt order (ties in add order). */
  items(limit = Infinity): TimedValue[] {
    return this.#entries.slice(0, limit).map((e) => ({ ...e.item }));
  }

  #indexOf(value: string): number {
    return this.#entries.findIndex((e) => e.item.value === value);
  }

  #insert(item: TimedValue): void {
    const entry: Entry = { item, seq: this.#seq++ };
    // Upper bound: the new entry goes after every entry due at or before it.
    let lo = 0;
    let hi = this.#entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const other = this.#entries[mid] as Entry;
      if (other.item.processAt <= item.processAt) lo = mid + 1;
      else hi = mid;
    }
    this.#entries.splice(lo, 0, entry);
  }
}

/**
 * `RateLimitedTimedQueue` (pkg/controller/nodelifecycle/scheduler): one per zone, feeding the NoExecute tainter.
 * `try` takes items in processAt order, each paid for with a token from the zone's limiter; `swapLimiter`
 * changes the zone's rate when its disruption state changes (docs/node-lifecycle.md#zone-queues).
 */
export class RateLimitedTimedQueue {
  readonly #queue = new UniqueQueue();
  readonly #clock: Clock;
  #limiter: RateLimiter;
  /** Serialises `try` calls, as upstream's limiterLock does: two overlapping passes must not share one head. */
  #running: Promise<void> = Promise.resolve();

  constructor(limiter: RateLimiter, clock: Clock) {
    this.#limiter = limiter;
    this.#clock = clock;
  }

  /** Queues `value` due now; false (a no-op) if it is already in the set, even when already processed. */
  add(value: string, uid: string): boolean {
    const now = this.#clock.monotonic();
    return this.#queue.add({ value, uid, addedAt: now, processAt: now });
  }

  /** Forgets `value` (set and heap), so a later `add` queues it again. */
  remove(value: string): boolean {
    return this.#queue.remove(value);
  }

  has(value: string): boolean {
    return this.#queue.has(value);
  }

  /**
   * `Try`: while there is a head item, take a token, then process the head if it is due.
   * Upstream's quirk is kept on purpose, for pacing parity (docs/node-lifecycle.md#q6-try-spends-a-token-first):
   * the token is taken BEFORE checking that the head is due, so a not-yet-due head still costs a token. `done`
   * drops the item from the heap (it stays in the set); not done reschedules it `retryAfterMs` later, unless it was
   * removed while `fn` ran. The limiter is re-read on every iteration, so a `swapLimiter` made while `fn` awaits
   * applies to the next item.
   * If `fn` rejects, the loop stops, the item stays due at the head (its token is spent) and the error propagates.
   */
  try(fn: (v: TimedValue) => Promise<TryResult>): Promise<void> {
    const run = this.#running.then(() => this.#tryLoop(fn));
    this.#running = run.catch(() => undefined);
    return run;
  }

  async #tryLoop(fn: (v: TimedValue) => Promise<TryResult>): Promise<void> {
    let head = this.#queue.head();
    while (head) {
      if (!this.#limiter.tryAccept()) break;
      const now = this.#clock.monotonic();
      if (now < head.processAt) break;
      const result = await fn({ ...head });
      if (result.done) {
        this.#queue.removeFromQueue(head.value);
      } else {
        const wait = Math.max(0, result.retryAfterMs);
        this.#queue.replace({ ...head, processAt: now + wait + REQUEUE_SLACK_MS });
      }
      head = this.#queue.head();
    }
  }

  /**
   * `SwapLimiter` with upstream's drain rule (burst 1): the same rate keeps the current bucket and its state;
   * a rate <= 0 stops tainting; otherwise a fresh bucket(qps, 1) that starts full only if the old limiter
   * still had a token (which this call spends), and drained otherwise. Coming from "never" (rate 0) therefore
   * always yields a drained bucket: the first taint after a zone recovers waits a full 1/qps.
   */
  swapLimiter(qps: number): void {
    if (this.#limiter.qps() === qps) return;
    if (!(qps > 0)) {
      this.#limiter = neverRateLimiter;
      return;
    }
    const next = new TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, this.#clock);
    if (!this.#limiter.tryAccept()) next.tryAccept();
    this.#limiter = next;
  }

  limiterQps(): number {
    return this.#limiter.qps();
  }

  /** Drops every item, from heap and set; the limiter is kept. */
  clear(): void {
    this.#queue.clear();
  }

  /** Items still waiting in the heap (processed items that linger in the set are not counted). */
  size(): number {
    return this.#queue.size();
  }

  /** Heap items in processAt order, ties in add order. */
  values(): string[] {
    return this.#queue.values();
  }

  /** The item `try` would look at next (a copy), for inspection. */
  head(): TimedValue | undefined {
    return this.#queue.head();
  }

  /**
   * The heap items in the order `try` takes them and the limiter's state now: what the taint ETA
   * (`earliestTaintTimes`) is computed from.
   */
  schedule(limit?: number): { bucket: BucketState; items: TimedValue[]; length: number } {
    return { bucket: this.#limiter.state(), items: this.#queue.items(limit), length: this.#queue.size() };
  }
}
