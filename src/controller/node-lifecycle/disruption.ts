import type { Clock } from '../../core/clock.js';
import type { NodeCondition } from '../../core/node.js';
import type { NodeLifecycleConfig } from './config.js';
import { RateLimitedTimedQueue } from './rate-limited-queue.js';
import { newRateLimiter, neverRateLimiter } from './token-bucket.js';
import { zoneStateOf, type ZoneState } from './zone-state.js';

/** `EvictionRateLimiterBurst`. */
const BURST = 1;

/** A zone's NoExecute queue plus the names the tainter finished (in the queue's set, no longer in its heap). */
export interface ZoneQueue {
  queue: RateLimitedTimedQueue;
  done: Set<string>;
}

export interface ZoneCount {
  zone: string;
  state: Exclude<ZoneState, 'Initial'>;
  nodes: number;
  notReady: number;
}

/** Counted nodes of one zone in one pass: Ready=True, and the rest (False, Unknown or no Ready condition). */
export interface ZoneTally {
  ready: number;
  notReady: number;
}

export interface ZoneChange {
  zone: string;
  from: ZoneState;
  to: ZoneState;
  rate: number;
}

export interface DisruptionOutcome {
  /** Master-disruption mode entered or left in this pass. */
  transition: 'enter' | 'exit' | 'none';
  changes: ZoneChange[];
  counts: ZoneCount[];
  /** Zones counted before but not in this pass (no counted node left). */
  removed: string[];
  /** Zones seen for the first time ("Setting initial state for unseen zone"). */
  initial: string[];
}

type Rates = Pick<
  NodeLifecycleConfig,
  'nodeEvictionRate' | 'secondaryNodeEvictionRate' | 'largeClusterSizeThreshold' | 'unhealthyZoneThreshold'
>;

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Zone bookkeeping of `handleDisruption` (docs/node-lifecycle.md#zone-states):
 * - zone states exist for zones with counted nodes; iteration is always sorted
 *   (docs/node-lifecycle.md#d7-sorted-iteration);
 * - queues are kept apart from states: a zone whose nodes are all excluded or skipped keeps its queue and
 *   limiter (upstream replaced both: docs/node-lifecycle.md#q5-skipped-nodes-leave-zone-counts); a queue goes
 *   only when no node lives in its zone;
 * - master-disruption mode is an explicit flag: entered when every counted zone is Full, left as soon as any
 *   counted zone (a new one included) is not (docs/node-lifecycle.md#d6-any-zone-back-ends-master-disruption).
 */
export class ZoneBook {
  readonly #config: Rates;
  readonly #clock: Clock;
  readonly #states = new Map<string, ZoneState>();
  readonly #queues = new Map<string, ZoneQueue>();
  #master = false;

  constructor(config: Rates, clock: Clock) {
    this.#config = config;
    this.#clock = clock;
  }

  inMasterDisruption(): boolean {
    return this.#master;
  }

  /** `addPodEvictorForNewZone`: a zone's queue, created at the normal rate with a full bucket (0 in master mode). */
  queueFor(zone: string): ZoneQueue {
    let zq = this.#queues.get(zone);
    if (!zq) {
      const limiter = this.#master
        ? neverRateLimiter
        : newRateLimiter(this.#config.nodeEvictionRate, BURST, this.#clock);
      zq = { queue: new RateLimitedTimedQueue(limiter, this.#clock), done: new Set() };
      this.#queues.set(zone, zq);
    }
    return zq;
  }

  /** Drops the queues of zones where no node lives any more. */
  retainQueues(zonesWithNodes: ReadonlySet<string>): void {
    for (const zone of [...this.#queues.keys()]) if (!zonesWithNodes.has(zone)) this.#queues.delete(zone);
  }

  /** Sorted [zone, queue] pairs, for the tainter. */
  queues(): Array<[string, ZoneQueue]> {
    return [...this.#queues.entries()].sort(([a], [b]) => byName(a, b));
  }

  state(zone: string): ZoneState | undefined {
    return this.#states.get(zone);
  }

  rate(zone: string): number {
    return this.#queues.get(zone)?.queue.limiterQps() ?? 0;
  }

  /** Waiting in the heap (added, not yet finished by the tainter). */
  isPending(zone: string, name: string): boolean {
    const zq = this.#queues.get(zone);
    return zq !== undefined && zq.queue.has(name) && !zq.done.has(name);
  }

  /** `markNodeForTainting`: queue the node unless it is already waiting (keeping its place in line). */
  ensurePending(zone: string, name: string, uid: string): void {
    if (this.isPending(zone, name)) return;
    const zq = this.queueFor(zone);
    zq.queue.remove(name);
    zq.done.delete(name);
    zq.queue.add(name, uid);
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

  /** `ReducedQPSFunc` / `HealthyQPSFunc` by state (`setLimiterInZone`). */
  rateForState(state: ZoneState, size: number): number {
    if (state === 'PartialDisruption') {
      return size > this.#config.largeClusterSizeThreshold ? this.#config.secondaryNodeEvictionRate : 0;
    }
    return this.#config.nodeEvictionRate;
  }

  /** `handleDisruption`: zone Ready conditions of this pass (counted nodes only) → states, limiters, mode. */
  handleDisruption(readyByZone: ReadonlyMap<string, ReadonlyArray<NodeCondition | undefined>>): DisruptionOutcome {
    const tallies = new Map<string, ZoneTally>();
    for (const [zone, conditions] of readyByZone) {
      const ready = conditions.filter((c) => c?.status === 'True').length;
      tallies.set(zone, { ready, notReady: conditions.length - ready });
    }
    return this.handleTallies(tallies);
  }

  /** `handleDisruption` from per-zone counts (`ComputeZoneState` only needs them). */
  handleTallies(readyByZone: ReadonlyMap<string, ZoneTally>): DisruptionOutcome {
    const counts: ZoneCount[] = [...readyByZone.keys()].sort(byName).map((zone) => {
      const t = readyByZone.get(zone) as ZoneTally;
      return {
        zone,
        state: zoneStateOf(t.ready, t.notReady, this.#config.unhealthyZoneThreshold),
        nodes: t.ready + t.notReady,
        notReady: t.notReady,
      };
    });
    const initial: string[] = [];
    for (const c of counts) {
      if (!this.#states.has(c.zone)) {
        this.#states.set(c.zone, 'Initial');
        initial.push(c.zone);
      }
    }
    const removed = [...this.#states.keys()].filter((z) => !readyByZone.has(z)).sort(byName);
    for (const z of removed) this.#states.delete(z);
    const allFull = counts.length > 0 && counts.every((c) => c.state === 'FullDisruption');
    const changes: ZoneChange[] = [];
    let transition: DisruptionOutcome['transition'] = 'none';
    if (!this.#master && allFull) {
      transition = 'enter';
      this.#master = true;
      // markNodeAsReachable for every node: all leave the queues; the taint phase of this pass lifts their
      // NoExecute taints and queues the unhealthy ones again, in name order, behind a limiter of 0.
      for (const [, zq] of this.queues()) {
        zq.queue.swapLimiter(0);
        zq.queue.clear();
        zq.done.clear();
      }
      for (const c of counts) this.#setState(c.zone, 'FullDisruption', 0, changes);
    } else if (this.#master && counts.length > 0 && !allFull) {
      transition = 'exit';
      this.#master = false;
      // Limiters come back from "never", so each new bucket starts drained (the SwapLimiter rule).
      for (const c of counts) {
        const rate = this.rateForState(c.state, c.nodes);
        this.queueFor(c.zone).queue.swapLimiter(rate);
        this.#setState(c.zone, c.state, rate, changes);
      }
      for (const [zone, zq] of this.queues())
        if (!readyByZone.has(zone)) zq.queue.swapLimiter(this.#config.nodeEvictionRate);
    } else if (this.#master) {
      // Still every zone down: a zone first seen now must not taint either.
      for (const [, zq] of this.queues()) zq.queue.swapLimiter(0);
      for (const c of counts) this.#setState(c.zone, 'FullDisruption', 0, changes);
    } else {
      for (const c of counts) {
        if (this.#states.get(c.zone) === c.state) continue;
        const rate = this.rateForState(c.state, c.nodes);
        this.queueFor(c.zone).queue.swapLimiter(rate);
        this.#setState(c.zone, c.state, rate, changes);
      }
    }
    return { transition, changes, counts, removed, initial };
  }

  /** Sorted [zone, state]. */
  states(): Array<[string, ZoneState]> {
    return [...this.#states.entries()].sort(([a], [b]) => byName(a, b));
  }

  #setState(zone: string, to: ZoneState, rate: number, changes: ZoneChange[]): void {
    const from = this.#states.get(zone) ?? 'Initial';
    this.#states.set(zone, to);
    if (from !== to) changes.push({ zone, from, to, rate });
  }
}
