import type { Clock } from '../../core/clock.js';
import type { NodeLifecycleConfig } from './config.js';
import type { Membership } from './known-nodes.js';
import { RateLimitedTimedQueue } from './rate-limited-queue.js';
import { newRateLimiter, neverRateLimiter } from './token-bucket.js';

/** `EvictionRateLimiterBurst`. */
const BURST = 1;

/** A zone's NoExecute queue plus the names the tainter finished (in the queue's set, no longer in its heap). */
export interface ZoneQueue {
  queue: RateLimitedTimedQueue;
  done: Set<string>;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The NoExecute tainter's queues, one per zone (upstream's `zoneNoExecuteTainter`), and every change made to
 * them: a queue exists for every zone a known node lives in (kept apart from zone states: a zone whose nodes are
 * all excluded or skipped keeps its queue and limiter:
 * docs/node-lifecycle.md#q5-skipped-nodes-leave-zone-counts), nodes join and leave it by the taint reconcile,
 * limiters follow the zone states (ZoneBook), and master-disruption mode halts every queue.
 */
export class ZoneQueues {
  readonly #evictionRate: number;
  readonly #clock: Clock;
  readonly #queues = new Map<string, ZoneQueue>();
  /** Master-disruption mode: no limiter accepts, including those of queues created meanwhile. */
  #halted = false;

  constructor(config: Pick<NodeLifecycleConfig, 'nodeEvictionRate'>, clock: Clock) {
    this.#evictionRate = config.nodeEvictionRate;
    this.#clock = clock;
  }

  /** `addPodEvictorForNewZone`: a zone's queue, created at the normal rate with a full bucket (0 while halted). */
  queueFor(zone: string): ZoneQueue {
    let zq = this.#queues.get(zone);
    if (!zq) {
      const limiter = this.#halted ? neverRateLimiter : newRateLimiter(this.#evictionRate, BURST, this.#clock);
      zq = { queue: new RateLimitedTimedQueue(limiter, this.#clock), done: new Set() };
      this.#queues.set(zone, zq);
    }
    return zq;
  }

  /**
   * The queue side of a pass's membership changes (RegisteredNode, a zone move, RemovingNode): a queue for every
   * zone that gained a node, the node out of the queue of a zone it left, and no queue for a zone left without
   * nodes. `zonesWithNodes` is asked only when membership changed.
   */
  track(changes: Membership, zonesWithNodes: () => Iterable<string>): void {
    for (const rec of changes.added) this.queueFor(rec.zone);
    for (const { rec, from } of changes.moved) {
      this.forget(from, rec.name);
      this.queueFor(rec.zone);
    }
    for (const rec of changes.removed) this.forget(rec.zone, rec.name);
    // Only membership or zone changes can leave a queue without nodes.
    if (changes.added.length + changes.moved.length + changes.removed.length > 0)
      this.retain(new Set(zonesWithNodes()));
  }

  /** Drops the queues of zones where no node lives any more. */
  retain(zonesWithNodes: ReadonlySet<string>): void {
    for (const zone of [...this.#queues.keys()]) if (!zonesWithNodes.has(zone)) this.#queues.delete(zone);
  }

  /** Sorted [zone, queue] pairs, for the tainter. */
  sorted(): Array<[string, ZoneQueue]> {
    return [...this.#queues.entries()].sort(([a], [b]) => byName(a, b));
  }

  /** The zone's NoExecute rate (0 without a queue). */
  rate(zone: string): number {
    return this.#queues.get(zone)?.queue.limiterQps() ?? 0;
  }

  /** The first `limit` names waiting in the zone's heap, in order, and how many wait in all. */
  waiting(zone: string, limit: number): { queued: string[]; queueLength: number } {
    const zq = this.#queues.get(zone);
    return zq
      ? { queued: zq.queue.values().slice(0, limit), queueLength: zq.queue.size() }
      : { queued: [], queueLength: 0 };
  }

  /** Waiting in the heap (added, not yet finished by the tainter). */
  isPending(zone: string, name: string): boolean {
    const zq = this.#queues.get(zone);
    return zq !== undefined && zq.queue.has(name) && !zq.done.has(name);
  }

  /**
   * `markNodeForTainting`: queue the node unless it is already waiting (keeping its place in line); true when it
   * was queued now.
   */
  ensurePending(zone: string, name: string, uid: string): boolean {
    if (this.isPending(zone, name)) return false;
    const zq = this.queueFor(zone);
    zq.queue.remove(name);
    zq.done.delete(name);
    return zq.queue.add(name, uid);
  }

  /** The zone queue's first `limit` items in order and its limiter now, for verdicts (undefined: no queue). */
  schedule(zone: string, limit?: number): ReturnType<RateLimitedTimedQueue['schedule']> | undefined {
    return this.#queues.get(zone)?.queue.schedule(limit);
  }

  /** `Remove` from the zone queue (node healthy again, taint lifted, or node gone). */
  forget(zone: string, name: string): void {
    const zq = this.#queues.get(zone);
    if (!zq) return;
    zq.queue.remove(name);
    zq.done.delete(name);
  }

  /** The tainter finished the node: it left the heap and stays in the set. */
  markDone(zone: string, name: string): void {
    this.#queues.get(zone)?.done.add(name);
  }

  /** `setLimiterInZone`: the zone's limiter at `qps` (the SwapLimiter rule), its queue created if need be. */
  swapLimiter(zone: string, qps: number): void {
    this.queueFor(zone).queue.swapLimiter(qps);
  }

  /**
   * Master-disruption mode entered: `markNodeAsReachable` for every node, so all leave the queues, and every
   * limiter goes to 0; the taint phase of the pass queues the unhealthy ones again, in name order.
   */
  halt(): void {
    this.#halted = true;
    for (const [, zq] of this.sorted()) {
      zq.queue.swapLimiter(0);
      zq.queue.clear();
      zq.done.clear();
    }
  }

  /**
   * Master-disruption mode left: each counted zone's limiter at its rate (coming back from "never", each new
   * bucket starts drained: the SwapLimiter rule), every other queue at the normal rate.
   */
  resume(rates: ReadonlyMap<string, number>): void {
    this.#halted = false;
    for (const [zone, qps] of rates) this.swapLimiter(zone, qps);
    for (const [zone, zq] of this.sorted()) if (!rates.has(zone)) zq.queue.swapLimiter(this.#evictionRate);
  }
}
