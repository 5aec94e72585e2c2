import type { Clock } from '../core/clock.js';
import type { Fleet } from './fleet.js';
import type { NodeView, NodeWatch } from './node-watch.js';
import type { PodMoves } from './pod-moves.js';
import type { Timeline } from './timeline.js';
import type { ZoneWatch } from './zone-watch.js';

/** Two zones of 60, a rack in us-east-1a dies and spreads (docs/node-lifecycle.md#rack-failure). */
export const RACK_FAILURE_ZONES = [
  { name: 'us-east-1a', nodes: 60 },
  { name: 'us-east-1b', nodes: 60 },
];
const [ZONE_A, ZONE_B] = ['us-east-1a', 'us-east-1b'] as const;
/** The first rack: nodes 17–22 of us-east-1a; then 17–52 (36 of 60). */
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

export interface RackFailureDeps {
  fleet: Fleet;
  nodes: NodeWatch;
  zones: ZoneWatch;
  timeline: Timeline;
  clock: Clock;
  /** The scenario's pods (pod-moves.ts); without it the story has nodes only. */
  pods?: PodMoves;
}

export interface RackFailureOptions {
  /** Longest wait for one expectation before the scenario reports it missed and moves on. */
  stepTimeoutMs: number;
  /** The agents' --lease-duration: how long step 3 keeps everything down at least (see play). */
  leaseDurationMs: number;
  /** Replicas of the scenario's Deployment of placeholder pods (with `pods` in the deps). */
  podCount?: number;
}

interface TaintSeen {
  atMs: number;
  name: string;
  zone: string;
}

/**
 * Plays the rack failure against a live server and checks each step's expectation as it is observed.
 * Times are whatever the server's flags make them (run it with short controller flags); the order is the
 * story's. Returns the number of expectations missed (0: the story played out as docs/node-lifecycle.md says).
 */
export class RackFailure {
  readonly #deps: RackFailureDeps;
  readonly #options: RackFailureOptions;
  readonly #taints: TaintSeen[] = [];
  #missed = 0;
  /** Node and zone changes are printed from step 1 on: the churn of 120 registrations is set-up, not story. */
  #printing = false;

  constructor(deps: RackFailureDeps, options: RackFailureOptions) {
    this.#deps = deps;
    this.#options = options;
    deps.nodes.onChange((name, before, after) => {
      this.#noteTaint(name, before, after);
      if (this.#printing) deps.timeline.nodeChanged(name, before, after);
    });
    deps.zones.onChange((name, before, after) => {
      if (this.#printing) deps.timeline.zoneChanged(name, before, after);
    });
  }

  async play(signal: AbortSignal): Promise<number> {
    const { timeline: t } = this.#deps;
    t.line('step 0: start 60 agents in us-east-1a and 60 in us-east-1b');
    this.#deps.fleet.startNodes(this.#deps.fleet.nodes);
    await this.#expect(
      signal,
      'all 120 nodes Ready and both zones Normal',
      () => this.#down(ZONE_A) + this.#down(ZONE_B) === 0 && this.#allCountedReady(),
    );

    await this.#deploy(signal);
    this.#printing = true;
    this.#deps.pods?.start();
    for (const z of [ZONE_A, ZONE_B]) t.zoneChanged(z, undefined, this.#zone(z));
    t.line('step 1: a rack in us-east-1a dies: 6 of 60 nodes stop (fleet-us-east-1a-17..22)');
    const mark1 = t.elapsedMs();
    this.#stop(ZONE_A, range(17, 22));
    await this.#firstTwoTaints(
      signal,
      mark1,
      range(17, 22).map((i) => this.#name(ZONE_A, i)),
    );
    this.#check('both zones still Normal with 6 of 60 down', this.#zonesAre('Normal', 'Normal'));

    t.line('step 2: the failure spreads: 36 of 60 nodes in us-east-1a down');
    this.#stop(ZONE_A, range(23, 52));
    await this.#expect(
      signal,
      'us-east-1a PartialDisruption at the secondary rate',
      () => this.#zone(ZONE_A)?.state === 'PartialDisruption',
    );
    await this.#slowTaint(signal, ZONE_A, t.elapsedMs());

    t.line('step 3: us-east-1b goes dark too: all 120 nodes down');
    const down3 = this.#deps.clock.monotonic();
    this.#stop(ZONE_A, range(0, 59));
    this.#stop(ZONE_B, range(0, 59));
    await this.#expect(
      signal,
      'master disruption: both zones FullDisruption',
      () => this.#zonesAre('FullDisruption', 'FullDisruption') && this.#master(),
    );
    const masterSeenAt = this.#deps.clock.now();
    await this.#expect(
      signal,
      'every NoExecute taint lifted (fleet-us-east-1a-17 included)',
      () => this.#taintedCount() === 0,
    );
    // Down for at least one lease duration, so returning agents adopt their expired leases at once instead of
    // first watching them for a renew interval (registration's duplicate-holder check): zones come back together.
    await this.#deps.clock.sleep(
      Math.max(0, down3 + this.#options.leaseDurationMs - this.#deps.clock.monotonic()),
      signal,
    );

    const evicted = this.#deps.pods?.evictedBetween(masterSeenAt, this.#deps.clock.now());
    if (evicted !== undefined) this.#check(`no pod evicted during master disruption (${evicted})`, evicted === 0);
    t.line('step 4: us-east-1b comes back but 4 (fleet-us-east-1b-17..20); us-east-1a back to 36 of 60 down');
    const mark4 = t.elapsedMs();
    this.#start(
      ZONE_B,
      range(0, 59).filter((i) => i < 17 || i > 20),
    );
    this.#start(
      ZONE_A,
      range(0, 59).filter((i) => i < 17 || i > 52),
    );
    await this.#expect(signal, 'master disruption off', () => !this.#master());
    await this.#expect(signal, 'us-east-1b Normal, us-east-1a PartialDisruption', () =>
      this.#zonesAre('PartialDisruption', 'Normal'),
    );
    const back = t.elapsedMs();
    await this.#expect(
      signal,
      'us-east-1b tainted again at the normal rate',
      () => this.#firstTaint(ZONE_B, mark4) !== undefined,
    );
    await this.#slowTaint(signal, ZONE_A, back);
    for (const line of this.#deps.pods?.report([ZONE_A, ZONE_B]) ?? []) t.line(line);
    t.line(
      `rack-failure done: ${this.#missed === 0 ? 'every expectation met' : `${this.#missed} expectation(s) missed`}`,
    );
    return this.#missed;
  }

  /** Step 0's workload: a Deployment of placeholder pods, all Running before the story starts. */
  async #deploy(signal: AbortSignal): Promise<void> {
    const { pods, timeline } = this.#deps;
    const count = this.#options.podCount ?? 0;
    if (pods === undefined || count <= 0) return;
    timeline.line(`step 0: a Deployment of ${count} placeholder pods`);
    await pods.deploy(count);
    await this.#expect(signal, `all ${count} pods Running`, () => pods.running() === count);
  }

  #name(zone: string, i: number): string {
    return (this.#deps.fleet.zone(zone)[i] as { name: string }).name;
  }

  #stop(zone: string, indexes: number[]): void {
    const members = this.#deps.fleet.zone(zone);
    this.#deps.fleet.stopNodes(indexes.map((i) => members[i]).filter((m) => m !== undefined));
  }

  #start(zone: string, indexes: number[]): void {
    const members = this.#deps.fleet.zone(zone);
    this.#deps.fleet.startNodes(indexes.map((i) => members[i]).filter((m) => m !== undefined));
  }

  /** Fleet nodes of a zone the server does not show Ready=True. */
  #down(zone: string): number {
    return this.#deps.fleet.zone(zone).filter((m) => this.#deps.nodes.get(m.name)?.ready !== 'True').length;
  }

  #zone(zone: string): ReturnType<ZoneWatch['get']> {
    return this.#deps.zones.get(zone);
  }

  #zonesAre(a: string, b: string): boolean {
    return this.#zone(ZONE_A)?.state === a && this.#zone(ZONE_B)?.state === b;
  }

  /** The controller has counted every node Ready in a pass (Zone objects trail the nodes by up to one pass). */
  #allCountedReady(): boolean {
    return [ZONE_A, ZONE_B].every(
      (z) => this.#zone(z)?.state === 'Normal' && this.#zone(z)?.notReady === 0 && this.#zone(z)?.nodes === 60,
    );
  }

  #master(): boolean {
    return this.#zone(ZONE_A)?.masterDisruption === true || this.#zone(ZONE_B)?.masterDisruption === true;
  }

  #taintedCount(): number {
    return this.#deps.fleet.nodes.filter((m) => (this.#deps.nodes.get(m.name)?.noExecute.length ?? 0) > 0).length;
  }

  #noteTaint(name: string, before: NodeView | undefined, after: NodeView | undefined): void {
    if (after === undefined || after.noExecute.length === 0 || (before?.noExecute.length ?? 0) > 0) return;
    this.#taints.push({ atMs: this.#deps.timeline.elapsedMs(), name, zone: after.zone });
    if (after.noExecuteSince !== undefined) {
      this.#deps.pods?.noteTaint(name, after.zone, after.noExecuteSince, this.#zone(after.zone)?.evictionRate ?? 0);
    }
  }

  #taintedSince(zone: string, sinceMs: number): TaintSeen[] {
    return this.#taints.filter((x) => x.zone === zone && x.atMs >= sinceMs);
  }

  /**
   * The story's step 1 on a fake clock has every node of the rack die at one instant, so the sorted order puts
   * node 17 first. Real agents renew at different phases, so whichever one renewed least recently goes Unknown
   * first: what must hold is that only the rack is tainted, one token (1/rate) apart.
   */
  async #firstTwoTaints(signal: AbortSignal, sinceMs: number, rack: string[]): Promise<void> {
    await this.#expect(
      signal,
      'a first NoExecute taint in us-east-1a',
      () => this.#taintedSince(ZONE_A, sinceMs).length >= 1,
    );
    const [first] = this.#taintedSince(ZONE_A, sinceMs);
    if (first === undefined) return;
    this.#check(
      `the first taint is on the dead rack (${first.name}), at once: the zone's bucket starts full`,
      rack.includes(first.name),
    );
    await this.#expect(signal, 'a second taint in us-east-1a', () => this.#taintedSince(ZONE_A, sinceMs).length >= 2);
    const second = this.#taintedSince(ZONE_A, sinceMs)[1];
    const rate = this.#zone(ZONE_A)?.evictionRate ?? 0;
    if (second === undefined || rate <= 0) return;
    const gapS = (second.atMs - first.atMs) / 1000;
    // Observed through a watch on a pass period: allow half a token of slack, never less than half a token.
    this.#check(
      `the second (${second.name}) ${gapS.toFixed(1)}s later: one token at ${rate}/s`,
      rack.includes(second.name) && gapS >= 0.5 / rate,
    );
  }

  #firstTaint(zone: string, sinceMs: number): TaintSeen | undefined {
    return this.#taints.find((x) => x.zone === zone && x.atMs >= sinceMs);
  }

  /**
   * At the secondary rate (0.01/s by default) the next taint in a partially disrupted zone is 100 s away: wait
   * for it when 1.5 intervals fit in the step timeout, else say so and move on (run the server with a higher
   * --secondary-node-eviction-rate to see it).
   */
  async #slowTaint(signal: AbortSignal, zone: string, sinceMs: number): Promise<void> {
    const rate = this.#zone(zone)?.evictionRate ?? 0;
    const what = `a taint in ${zone} at its rate of ${rate}/s`;
    if (rate <= 0 || 1500 / rate > this.#options.stepTimeoutMs) {
      this.#deps.timeline.line(`  - not waiting for ${what}: it is more than the step timeout away`);
      return;
    }
    await this.#expect(signal, what, () => this.#firstTaint(zone, sinceMs) !== undefined);
  }

  #check(what: string, ok: boolean): void {
    if (!ok) this.#missed++;
    this.#deps.timeline.line(`  ${ok ? 'ok' : 'MISSED'}: ${what}`);
  }

  async #expect(signal: AbortSignal, what: string, done: () => boolean): Promise<void> {
    const deadline = this.#deps.clock.monotonic() + this.#options.stepTimeoutMs;
    // Polls the watched state (not the server): cheap, and the watches deliver changes within milliseconds.
    while (!done()) {
      if (this.#deps.clock.monotonic() >= deadline) {
        this.#check(`${what} (not seen within ${this.#options.stepTimeoutMs / 1000}s)`, false);
        return;
      }
      await this.#deps.clock.sleep(50, signal);
    }
    this.#check(what, true);
  }
}
