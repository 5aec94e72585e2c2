import type { ZoneCounts } from '../fleet.js';
import type { LightNodeIdentity, RenewParts } from './light-requests.js';

export const STOPPED = 0;
export const QUEUED = 1;
export const RUNNING = 2;

/**
 * The light fleet's nodes and whether each runs: the identities by name and by zone, a run state per node in a
 * typed array, the queue of nodes waiting to start, and what chaos commands and the live report ask of a fleet
 * (src/fleet/chaos-control.ts, ChaosFleet). LightFleet (light-fleet.ts) extends it with what a running node does
 * on the wire; stopping a node here is all it takes to silence it there, because its wheel entry's ticket no
 * longer matches and its answers find it not running.
 */
export class LightNodeTable {
  readonly nodes: LightNodeIdentity[] = [];
  readonly #byName = new Map<string, LightNodeIdentity>();
  readonly #byZone = new Map<string, LightNodeIdentity[]>();
  /** STOPPED, QUEUED or RUNNING, by node index. */
  protected readonly state: Uint8Array;
  /** The ticket of each node's one live wheel entry (light-fleet.ts); bumping it voids the entry. */
  protected readonly ticket: Uint16Array;
  /** The prebuilt renewal of each node that holds its lease; undefined until it does. */
  protected readonly renew: Array<RenewParts | undefined>;
  #startQueue: number[] = [];
  #startHead = 0;

  constructor(zones: ReadonlyArray<{ name: string; nodes: number }>, prefix: string) {
    for (const z of zones) {
      const members: LightNodeIdentity[] = [];
      for (let i = 0; i < z.nodes; i++) {
        const n = { name: `${prefix}-${z.name}-${i}`, zone: z.name, index: this.nodes.length };
        members.push(n);
        this.nodes.push(n);
        this.#byName.set(n.name, n);
      }
      this.#byZone.set(z.name, members);
    }
    const n = this.nodes.length;
    this.state = new Uint8Array(n);
    this.ticket = new Uint16Array(n);
    this.renew = new Array<RenewParts | undefined>(n).fill(undefined);
  }

  zoneNames(): string[] {
    return [...this.#byZone.keys()];
  }

  get(name: string): LightNodeIdentity | undefined {
    return this.#byName.get(name);
  }

  zone(zone: string): LightNodeIdentity[] {
    const members = this.#byZone.get(zone);
    if (members === undefined)
      throw new Error(`no zone "${zone}" in this fleet; zones are ${this.zoneNames().join(', ')}`);
    return members;
  }

  isRunning(name: string): boolean {
    const n = this.#byName.get(name);
    return n !== undefined && this.state[n.index] === RUNNING;
  }

  /** Nodes that hold their lease and renew it: what the expected renewal rate is counted from. */
  renewing(): number {
    let k = 0;
    for (let i = 0; i < this.nodes.length; i++) if (this.state[i] === RUNNING && this.renew[i]) k++;
    return k;
  }

  startNodes(nodes: readonly LightNodeIdentity[]): number {
    let k = 0;
    for (const n of nodes) {
      if (this.state[n.index] !== STOPPED) continue;
      this.state[n.index] = QUEUED;
      this.#startQueue.push(n.index);
      k++;
    }
    return k;
  }

  stopNodes(nodes: readonly LightNodeIdentity[]): number {
    let k = 0;
    for (const n of nodes) {
      if (this.state[n.index] === STOPPED) continue;
      this.state[n.index] = STOPPED;
      this.renew[n.index] = undefined;
      this.ticket[n.index] = (this.ticket[n.index] as number) + 1; // its wheel entry is void
      k++;
    }
    return k;
  }

  stopFraction(zone: string, fraction: number): LightNodeIdentity[] {
    const members = this.zone(zone);
    const target = Math.round(fraction * members.length);
    const already = members.filter((m) => this.state[m.index] === STOPPED).length;
    const victims = members.filter((m) => this.state[m.index] !== STOPPED).slice(0, Math.max(0, target - already));
    this.stopNodes(victims);
    return victims;
  }

  resumeFraction(zone: string, fraction = 1): LightNodeIdentity[] {
    const members = this.zone(zone);
    const chosen = members
      .filter((m) => this.state[m.index] === STOPPED)
      .slice(0, Math.round(fraction * members.length));
    this.startNodes(chosen);
    return chosen;
  }

  counts(): ZoneCounts[] {
    return [...this.#byZone].map(([zone, members]) => {
      let running = 0;
      let queued = 0;
      for (const m of members) {
        const s = this.state[m.index];
        if (s === RUNNING) running++;
        else if (s === QUEUED) queued++;
      }
      return { zone, nodes: members.length, running, queued, stopped: members.length - running - queued };
    });
  }

  /** Queued starts not yet sent. */
  get queuedStarts(): number {
    return this.#startQueue.length - this.#startHead;
  }

  /**
   * The next queued node, now marked running, or -1 when none waits. Entries of nodes stopped while queued are
   * passed over; the queue is emptied once drained, so it never grows past one start of the whole fleet.
   */
  protected takeStart(): number {
    while (this.#startHead < this.#startQueue.length) {
      const i = this.#startQueue[this.#startHead++] as number;
      if (this.#startHead === this.#startQueue.length) {
        this.#startQueue = [];
        this.#startHead = 0;
      }
      if (this.state[i] !== QUEUED) continue;
      this.state[i] = RUNNING;
      return i;
    }
    return -1;
  }
}
