import type { PipelineHandler } from './http-pipeline.js';
import { type LightNodeIdentity, type RenewParts, type RequestWriter, resourceVersionIn } from './light-requests.js';
import type { LatencyHistogram } from '../latency-histogram.js';
import { LightNodeTable, RUNNING } from './light-node-table.js';
import type { LightStats } from './light-stats.js';
import { TimerWheel } from './timer-wheel.js';

// Operation codes: the index into LIGHT_OPS (light-stats.ts).
const NODE_CREATE = 0;
const NODE_GET = 1;
const STATUS = 2;
const LEASE_CREATE = 3;
const LEASE_GET = 4;
const RENEW = 5;

const RETRY_MS = 1000;
/** Ticket bits in a wheel entry: entry = index × TICKETS + ticket. */
const TICKETS = 4096;

/** Where requests go; PipelinePool in production, a recorder in tests. */
export interface RequestSink {
  send(tag: number, text: string, sentAt: number): void;
}

/**
 * When a node's first renewal falls after it registers (docs/fleet.md#light-mode). `random`: at a phase drawn
 * uniformly in [0, interval), so the fleet's renewals spread evenly over the period, as those of agents that
 * started at unrelated times do. `start`: one interval after registration, so the renewals keep the start pacing.
 */
export type RenewPhase = 'random' | 'start';

export interface LightFleetConfig {
  zones: Array<{ name: string; nodes: number }>;
  prefix: string;
  leaseDurationSeconds: number;
  statusReportMs: number;
  renewPhase: RenewPhase;
}

export interface LightFleetDeps {
  writer: RequestWriter;
  stats: LightStats;
  /** Monotonic ms (performance.now in production). */
  monotonic: () => number;
  /** The wall-clock time written into renewals, ISO 8601. */
  wallTime: () => string;
  onStart?: (name: string) => void;
  /** Uniform in [0, 1): the random renewal phase (Math.random by default). */
  random?: () => number;
}

/**
 * N simulated agents as arrays, driven by one timer wheel: what each node does next is a small state machine
 * (create or adopt the node, create or adopt the lease, post status, then renew at the node's phase and every
 * quarter lease duration after, with the lease's last resourceVersion, re-reading it only after a Conflict), and
 * every answer arrives through one handler (PipelineHandler), so a renewal allocates a request string and nothing
 * per node lives in a promise or a closure. Which nodes run, and the chaos controls that stop and start them as in
 * agent mode, are the node table's (light-node-table.ts).
 */
export class LightFleet extends LightNodeTable implements PipelineHandler {
  readonly #deps: LightFleetDeps;
  readonly #intervalMs: number;
  readonly #statusMs: number;
  readonly #randomPhase: boolean;
  readonly #random: () => number;
  readonly #gen: Uint8Array;
  readonly #nextOp: Uint8Array;
  readonly #dueAt: Float64Array;
  readonly #statusDueAt: Float64Array;
  readonly #statusBusy: Uint8Array;
  readonly #leaseRv: string[];
  readonly #nodeRv: string[];
  readonly #readySince: string[];
  readonly #wheel: TimerWheel;
  #sink: RequestSink | undefined;
  #now = 0;
  /** The wall-clock time of this tick, written into renewals and status posts. */
  #wall = '';

  constructor(config: LightFleetConfig, deps: LightFleetDeps) {
    super(config.zones, config.prefix);
    this.#deps = deps;
    this.#intervalMs = config.leaseDurationSeconds * 250; // a quarter (src/agent/lease-renewer.ts)
    this.#statusMs = config.statusReportMs;
    this.#randomPhase = config.renewPhase === 'random';
    this.#random = deps.random ?? Math.random;
    const n = this.nodes.length;
    this.#gen = new Uint8Array(n);
    this.#nextOp = new Uint8Array(n);
    this.#dueAt = new Float64Array(n);
    this.#statusDueAt = new Float64Array(n);
    this.#statusBusy = new Uint8Array(n);
    this.#leaseRv = new Array<string>(n).fill('');
    this.#nodeRv = new Array<string>(n).fill('');
    this.#readySince = new Array<string>(n).fill('');
    this.#wheel = new TimerWheel(10, this.#intervalMs + RETRY_MS, deps.monotonic());
  }

  /** Requests go to `sink` from now on (set once, before the first tick). */
  connect(sink: RequestSink): void {
    this.#sink = sink;
  }

  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** One turn of the fleet: start up to `starts` queued nodes, then send whatever the wheel says is due. */
  tick(starts: number): void {
    this.#now = this.#deps.monotonic();
    this.#wall = this.#deps.wallTime();
    for (let k = 0; k < starts; k++) {
      const i = this.takeStart();
      if (i < 0) break;
      this.#gen[i] = (this.#gen[i] as number) + 1;
      this.#readySince[i] = this.#wall;
      this.#statusDueAt[i] = 0;
      this.#statusBusy[i] = 0;
      this.#deps.onStart?.((this.nodes[i] as LightNodeIdentity).name);
      this.#send(i, NODE_CREATE);
    }
    this.#wheel.advance(this.#now, this.#fire);
  }

  readonly #fire = (entry: number): void => {
    const i = Math.floor(entry / TICKETS);
    if (entry % TICKETS !== this.ticket[i] || this.state[i] !== RUNNING) return;
    const due = this.#dueAt[i] as number;
    if (due > this.#now) return this.#wheel.add(entry, due);
    const op = this.#nextOp[i] as number;
    if (op === RENEW && this.renew[i] === undefined) return;
    if (op === RENEW && (this.#statusDueAt[i] as number) <= this.#now && this.#statusBusy[i] === 0) {
      this.#statusBusy[i] = 1;
      this.#send(i, STATUS);
    }
    this.#send(i, op);
  };

  /** How long after registering a node first renews: its phase (see RenewPhase). */
  #firstRenewalMs(): number {
    return this.#randomPhase ? this.#random() * this.#intervalMs : this.#intervalMs;
  }

  #schedule(i: number, op: number, at: number): void {
    const ticket = ((this.ticket[i] as number) + 1) % TICKETS;
    this.ticket[i] = ticket;
    this.#nextOp[i] = op;
    this.#dueAt[i] = at;
    this.#wheel.add(i * TICKETS + ticket, at);
  }

  #send(i: number, op: number): void {
    const n = this.nodes[i] as LightNodeIdentity;
    const w = this.#deps.writer;
    let text: string;
    switch (op) {
      case NODE_CREATE:
        text = w.createNode(n);
        break;
      case NODE_GET:
        text = w.getNode(n);
        break;
      case STATUS:
        text = w.status(n, this.#nodeRv[i] as string, this.#readySince[i] as string, this.#wall);
        break;
      case LEASE_CREATE:
        text = w.createLease(n, this.#wall);
        break;
      case LEASE_GET:
        text = w.getLease(n);
        break;
      default:
        text = w.renew(n, this.renew[i] as RenewParts, this.#leaseRv[i] as string, this.#wall);
    }
    this.#deps.stats.window.requests.requests++;
    this.#deps.stats.total.requests.requests++;
    (this.#sink as RequestSink).send((i * 256 + (this.#gen[i] as number)) * 8 + op, text, this.#now);
  }

  onResponse(tag: number, status: number, buf: Buffer, start: number, end: number, sentAt: number): void {
    const op = tag % 8;
    const i = Math.floor(tag / 2048);
    if (this.state[i] !== RUNNING || Math.floor(tag / 8) % 256 !== this.#gen[i]) return; // from a stopped run
    this.#now = this.#deps.monotonic();
    const ms = this.#now - sentAt;
    const { window, total } = this.#deps.stats;
    (window.latency[op] as LatencyHistogram).record(ms);
    (total.latency[op] as LatencyHistogram).record(ms);
    if (status === 409) {
      window.requests.conflicts++;
      total.requests.conflicts++;
    }
    const ok = status >= 200 && status < 300;
    const registered = this.renew[i] !== undefined;
    switch (op) {
      case NODE_CREATE:
        if (ok) this.#nodeRv[i] = resourceVersionIn(buf, start, end) ?? '';
        if (ok) return this.#send(i, LEASE_CREATE);
        if (status === 409) return this.#send(i, NODE_GET); // adopt the node a previous run registered
        break;
      case NODE_GET:
        if (ok) this.#nodeRv[i] = resourceVersionIn(buf, start, end) ?? '';
        if (ok) return this.#send(i, registered ? STATUS : LEASE_CREATE);
        break;
      case STATUS:
        if (ok) {
          this.#nodeRv[i] = resourceVersionIn(buf, start, end) ?? '';
          this.#statusBusy[i] = 0;
          this.#statusDueAt[i] = this.#now + this.#statusMs;
          return;
        }
        if (status === 409) return this.#send(i, NODE_GET); // statusBusy stays 1 until the status is posted
        if (status === 404) return this.#restart(i);
        break;
      case LEASE_CREATE:
      case LEASE_GET:
        if (ok) {
          this.#leaseRv[i] = resourceVersionIn(buf, start, end) ?? '';
          if (registered) return this.#send(i, RENEW); // re-read after a Conflict: renew now
          this.renew[i] = this.#deps.writer.renewParts(this.nodes[i] as LightNodeIdentity, this.#wall);
          this.#statusBusy[i] = 1;
          this.#send(i, STATUS);
          return this.#schedule(i, RENEW, sentAt + this.#firstRenewalMs());
        }
        if (status === 409 && op === LEASE_CREATE) return this.#send(i, LEASE_GET);
        if (status === 404 && op === LEASE_GET) return this.#send(i, LEASE_CREATE);
        break;
      default:
        if (ok) {
          this.#leaseRv[i] = resourceVersionIn(buf, start, end) ?? '';
          window.requests.renewals++;
          total.requests.renewals++;
          window.requests.renewalLatency.record(ms);
          total.requests.renewalLatency.record(ms);
          return this.#schedule(i, RENEW, sentAt + this.#intervalMs);
        }
        if (status === 409) return this.#send(i, LEASE_GET);
        if (status === 404) return this.#restart(i);
    }
    this.#failed(i, op, `HTTP ${status}`);
  }

  onFailure(tag: number, reason: string): void {
    const i = Math.floor(tag / 2048);
    if (this.state[i] !== RUNNING || Math.floor(tag / 8) % 256 !== this.#gen[i]) return;
    this.#now = this.#deps.monotonic();
    this.#failed(i, tag % 8, reason);
  }

  /**
   * Counts the error and retries: a status post (and the node read it needs) with the next renewal, so the
   * renewal chain's one wheel entry stays; anything else of the registration or renewal chain in a second.
   */
  #failed(i: number, op: number, reason: string): void {
    this.#error(reason);
    const statusPath = op === STATUS || (op === NODE_GET && this.renew[i] !== undefined);
    if (statusPath) this.#statusBusy[i] = 0;
    else this.#schedule(i, op, this.#now + RETRY_MS);
  }

  /** The node or its lease was deleted under us: register again from scratch, as a restarted agent would. */
  #restart(i: number): void {
    this.#gen[i] = (this.#gen[i] as number) + 1; // answers still on their way belong to the old run
    this.ticket[i] = (this.ticket[i] as number) + 1;
    this.renew[i] = undefined;
    this.#statusBusy[i] = 0;
    this.#statusDueAt[i] = 0;
    this.#send(i, NODE_CREATE);
  }

  #error(reason: string): void {
    for (const w of [this.#deps.stats.window, this.#deps.stats.total]) {
      w.requests.errors++;
      w.requests.errorsByReason.set(reason, (w.requests.errorsByReason.get(reason) ?? 0) + 1);
      w.requests.lastError = reason;
    }
  }
}
