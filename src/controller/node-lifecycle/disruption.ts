import type { ZoneStatus } from '../../core/zone.js';
import type { NodeLifecycleConfig } from './config.js';
import type { ZoneQueues } from './zone-queues.js';
import { zoneStateOf, type ZoneState } from './zone-state.js';

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

/** One zone as the controller's snapshot shows it. */
export interface ZoneSnapshot {
  zone: string;
  state: ZoneState;
  evictionRate: number;
  nodes: number;
  notReady: number;
  /** The first names waiting for a NoExecute taint, in order; `queueLength`: all of them. */
  queued: string[];
  queueLength: number;
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
 * Zone states of `handleDisruption` (docs/node-lifecycle.md#zone-states), with docs/node-lifecycle.md#d6-any-zone-back-ends-master-disruption
 * and docs/node-lifecycle.md#d7-sorted-iteration:
 * - zone states exist for zones with counted nodes; iteration is always sorted;
 * - the zones' NoExecute queues are kept apart (ZoneQueues): this book only sets their limiters;
 * - master-disruption mode is an explicit flag: entered when every counted zone is Full, left as soon as any
 *   counted zone (a new one included) is not (docs/node-lifecycle.md#d6-any-zone-back-ends-master-disruption).
 */
export class ZoneBook {
  readonly #config: Rates;
  readonly #queues: ZoneQueues;
  readonly #states = new Map<string, ZoneState>();
  /** The counts of the last pass that went through. */
  #counts: ZoneCount[] = [];
  #master = false;

  constructor(config: Rates, queues: ZoneQueues) {
    this.#config = config;
    this.#queues = queues;
  }

  inMasterDisruption(): boolean {
    return this.#master;
  }

  state(zone: string): ZoneState | undefined {
    return this.#states.get(zone);
  }

  /** The zone's counts in the last pass that went through (undefined: no counted node). */
  count(zone: string): ZoneCount | undefined {
    return this.#counts.find((c) => c.zone === zone);
  }

  /** What the Zone object of a zone counted in the last pass shows. */
  status(c: ZoneCount): ZoneStatus {
    return {
      state: this.state(c.zone) ?? 'Initial',
      nodes: c.nodes,
      notReady: c.notReady,
      evictionRate: this.#queues.rate(c.zone),
    };
  }

  /** `ReducedQPSFunc` / `HealthyQPSFunc` by state (`setLimiterInZone`). */
  rateForState(state: ZoneState, size: number): number {
    if (state === 'PartialDisruption') {
      return size > this.#config.largeClusterSizeThreshold ? this.#config.secondaryNodeEvictionRate : 0;
    }
    return this.#config.nodeEvictionRate;
  }

  /**
   * `handleDisruption` from the per-zone counts of this pass (counted nodes only; `ComputeZoneState` needs no
   * more) → states, limiters, mode.
   */
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
      // The taint phase of this pass lifts every NoExecute taint and queues the unhealthy nodes again.
      this.#queues.halt();
      for (const c of counts) this.#setState(c.zone, 'FullDisruption', 0, changes);
    } else if (this.#master && counts.length > 0 && !allFull) {
      transition = 'exit';
      this.#master = false;
      const rates = new Map<string, number>();
      for (const c of counts) {
        const rate = this.rateForState(c.state, c.nodes);
        rates.set(c.zone, rate);
        this.#setState(c.zone, c.state, rate, changes);
      }
      this.#queues.resume(rates);
    } else if (this.#master) {
      // Still every zone down: a zone first seen now stays at 0 too (halted queues never accept).
      for (const c of counts) this.#setState(c.zone, 'FullDisruption', 0, changes);
    } else {
      for (const c of counts) {
        if (this.#states.get(c.zone) === c.state) continue;
        const rate = this.rateForState(c.state, c.nodes);
        this.#queues.swapLimiter(c.zone, rate);
        this.#setState(c.zone, c.state, rate, changes);
      }
    }
    this.#counts = counts;
    return { transition, changes, counts, removed, initial };
  }

  /** Sorted [zone, state]. */
  states(): Array<[string, ZoneState]> {
    return [...this.#states.entries()].sort(([a], [b]) => byName(a, b));
  }

  /** Every zone with a state, in order, with its sizes from the last counts and at most `queued` names of its queue. */
  snapshot(queued: number): ZoneSnapshot[] {
    const byZone = new Map(this.#counts.map((c) => [c.zone, c]));
    return this.states().map(([zone, state]) => ({
      zone,
      state,
      evictionRate: this.#queues.rate(zone),
      nodes: byZone.get(zone)?.nodes ?? 0,
      notReady: byZone.get(zone)?.notReady ?? 0,
      ...this.#queues.waiting(zone, queued),
    }));
  }

  #setState(zone: string, to: ZoneState, rate: number, changes: ZoneChange[]): void {
    const from = this.#states.get(zone) ?? 'Initial';
    this.#states.set(zone, to);
    if (from !== to) changes.push({ zone, from, to, rate });
  }
}
