import type { AgentConfig } from '../agent/agent.js';
import type { PodSource } from '../agent/pods/pod-source.js';
import type { ApiClient } from '../client/api-client.js';
import { isAbortError, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import { Pacer } from './pacer.js';
import { SimulatedNode } from './simulated-node.js';

export interface FleetConfig {
  /** Nodes per zone, in zone order (see planZones). */
  zones: Array<{ name: string; nodes: number }>;
  /** Node names are `<prefix>-<zone>-<index in zone>`. */
  prefix: string;
  /** Agent starts per second (registration and every restart). */
  startRatePerSecond: number;
  agent: Omit<AgentConfig, 'nodeName' | 'zone'>;
}

export interface FleetDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  /** The fleet's own log (crashes, chaos actions). */
  log: Logger;
  /** What the simulated agents log through (usually an aggregating logger). */
  agentLog: Logger;
  /** Called whenever a node's agent is (re)started, before it registers. */
  onStart?: (node: SimulatedNode) => void;
  /** The pods of a node, shared by every simulated agent (fleet-pod-feed.ts). */
  podSource?: (nodeName: string) => PodSource;
}

export interface ZoneCounts {
  zone: string;
  nodes: number;
  running: number;
  /** Wanted running but still waiting for a start slot. */
  queued: number;
  stopped: number;
}

/** `zone-a`, `zone-b`, … `zone-z`, `zone-aa`, … */
export function zoneName(i: number): string {
  let s = '';
  let n = i;
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return `zone-${s}`;
}

/** Spreads `nodes` over `zones` default-named zones as evenly as possible (the first zones get the remainder). */
export function planZones(nodes: number, zones: number): Array<{ name: string; nodes: number }> {
  if (!Number.isInteger(nodes) || nodes < 0) throw new Error(`--nodes must be a whole number, not ${nodes}`);
  if (!Number.isInteger(zones) || zones < 1) throw new Error(`--zones must be at least 1, not ${zones}`);
  return Array.from({ length: zones }, (_, i) => ({
    name: zoneName(i),
    nodes: Math.floor(nodes / zones) + (i < nodes % zones ? 1 : 0),
  }));
}

export function nodeName(prefix: string, zone: string, index: number): string {
  return `${prefix}-${zone}-${index}`;
}

/**
 * N simulated agents in one process over one shared client. Which nodes run is decided by `want`: chaos
 * commands flip it, and a single paced queue starts the wanted ones, so a mass restore registers at the start
 * rate instead of all at once. Stops take effect immediately (a dead rack does not drain politely).
 */
export class Fleet {
  readonly #deps: FleetDeps;
  readonly #pacer: Pacer;
  readonly nodes: SimulatedNode[] = [];
  readonly #byName = new Map<string, SimulatedNode>();
  readonly #byZone = new Map<string, SimulatedNode[]>();
  readonly #wanted = new Set<SimulatedNode>();
  /** Start requests in order; `#head` is the next one (an index, because shift() on 50,000 entries is slow). */
  #queue: SimulatedNode[] = [];
  #head = 0;
  #pumping = false;
  readonly #life = new AbortController();

  constructor(config: FleetConfig, deps: FleetDeps) {
    this.#deps = deps;
    this.#pacer = new Pacer(deps.clock, config.startRatePerSecond);
    const nodeDeps = {
      client: deps.client,
      clock: deps.clock,
      random: deps.random,
      log: deps.agentLog,
      agentConfig: config.agent,
      ...(deps.podSource === undefined ? {} : { podSource: deps.podSource }),
      onCrash: (node: SimulatedNode, err: unknown) => this.#crashed(node, err),
    };
    let index = 0;
    for (const z of config.zones) {
      const members: SimulatedNode[] = [];
      for (let i = 0; i < z.nodes; i++) {
        const node = new SimulatedNode(nodeDeps, nodeName(config.prefix, z.name, i), z.name, index++);
        members.push(node);
        this.nodes.push(node);
        this.#byName.set(node.name, node);
      }
      this.#byZone.set(z.name, members);
    }
  }

  zoneNames(): string[] {
    return [...this.#byZone.keys()];
  }

  get(name: string): SimulatedNode | undefined {
    return this.#byName.get(name);
  }

  /** Members of a zone in index order; throws a one-sentence error for an unknown zone. */
  zone(zone: string): SimulatedNode[] {
    const members = this.#byZone.get(zone);
    if (members === undefined)
      throw new Error(`no zone "${zone}" in this fleet; zones are ${this.zoneNames().join(', ')}`);
    return members;
  }

  isWanted(node: SimulatedNode): boolean {
    return this.#wanted.has(node);
  }

  /** Wants these nodes running; they start through the paced queue. Returns how many were newly wanted. */
  startNodes(nodes: readonly SimulatedNode[]): number {
    let n = 0;
    for (const node of nodes) {
      if (this.#wanted.has(node)) continue;
      this.#wanted.add(node);
      this.#queue.push(node);
      n++;
    }
    void this.#pump();
    return n;
  }

  /** Stops these nodes now (queued starts are cancelled). Returns how many were running or queued. */
  stopNodes(nodes: readonly SimulatedNode[]): number {
    let n = 0;
    for (const node of nodes) {
      if (!this.#wanted.delete(node)) continue;
      void node.stop();
      n++;
    }
    return n;
  }

  /** `stop ZONE FRACTION`: afterwards at least round(fraction × zone size) of the zone is stopped, lowest indexes first. */
  stopFraction(zone: string, fraction: number): SimulatedNode[] {
    const members = this.zone(zone);
    const target = Math.round(fraction * members.length);
    const alreadyStopped = members.filter((m) => !this.#wanted.has(m)).length;
    const victims = members.filter((m) => this.#wanted.has(m)).slice(0, Math.max(0, target - alreadyStopped));
    this.stopNodes(victims);
    return victims;
  }

  /** `resume ZONE [FRACTION]`: restarts round(fraction × zone size) of the zone's stopped nodes (all by default). */
  resumeFraction(zone: string, fraction = 1): SimulatedNode[] {
    const members = this.zone(zone);
    const count = Math.round(fraction * members.length);
    const chosen = members.filter((m) => !this.#wanted.has(m)).slice(0, count);
    this.startNodes(chosen);
    return chosen;
  }

  counts(): ZoneCounts[] {
    return [...this.#byZone].map(([zone, members]) => {
      const running = members.filter((m) => m.state === 'running').length;
      const wanted = members.filter((m) => this.#wanted.has(m)).length;
      return { zone, nodes: members.length, running, queued: wanted - running, stopped: members.length - wanted };
    });
  }

  /** Stops every agent and waits for their loops to unwind (the nodes and leases stay on the server). */
  async close(): Promise<void> {
    this.#life.abort();
    this.#wanted.clear();
    this.#queue = [];
    this.#head = 0;
    await Promise.all(this.nodes.map((n) => n.stop()));
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#head < this.#queue.length && !this.#life.signal.aborted) {
        const node = this.#queue[this.#head++] as SimulatedNode;
        if (this.#head >= 4096 && this.#head * 2 >= this.#queue.length) {
          this.#queue = this.#queue.slice(this.#head);
          this.#head = 0;
        }
        if (!this.#wanted.has(node) || node.state === 'running') continue;
        await this.#pacer.slot(this.#life.signal);
        // Stopped again while it waited for its slot: the stop wins.
        if (!this.#wanted.has(node)) continue;
        this.#deps.onStart?.(node);
        node.start();
      }
    } catch (err) {
      if (!isAbortError(err)) throw err;
    } finally {
      this.#pumping = false;
    }
  }

  #crashed(node: SimulatedNode, err: unknown): void {
    this.#wanted.delete(node);
    const msg = err instanceof Error ? err.message : String(err);
    this.#deps.log.error({ node: node.name, err: msg }, `simulated agent ${node.name} stopped on its own: ${msg}`);
  }
}
