import type { ApiClient } from '../../client/api-client.js';
import { formatTime, isAbortError, type Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { zoneKeyOf, type Node } from '../../core/node.js';
import type { Random } from '../../core/random.js';
import { MAX_WITNESS_REPORT_ENTRIES, WITNESS_ADDRESS_ANNOTATION } from '../../core/witness-report.js';
import type { ProbeTransport } from './probe-transport.js';
import { publishWitnessState } from './witness-publisher.js';
import { witnessTargets, type WitnessPeer } from './witness-choice.js';

/** Failed probes in a row after which a peer is reported unreachable (one lost packet is not an outage). */
export const UNREACHABLE_AFTER_FAILURES = 2;
/**
 * The node list is read again after 1, 2, 4 … probe intervals while the set of peers to probe keeps changing (a
 * fleet starting up), then every MAX_REFRESH_INTERVALS intervals (5 minutes at the default 5 s).
 */
export const MAX_REFRESH_INTERVALS = 60;

export interface WitnessProberConfig {
  nodeName: string;
  /** The zone key of this node (region.zone, docs/node-lifecycle.md#d10-zone-key-and-exclusion). */
  zone: string;
  /** The probe address this agent publishes (`shepherd.io/witness-address`). */
  address: string;
  /** --witness-count: witnesses per node. */
  count: number;
  /** --witness-probe-interval. */
  intervalMs: number;
  /** --witness-probe-timeout. */
  timeoutMs: number;
}

export interface WitnessProberDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  log: Logger;
  transport: ProbeTransport;
  config: WitnessProberConfig;
}

/** What the prober knows of one peer it witnesses. */
interface Target {
  peer: WitnessPeer;
  failures: number;
  /** Undefined until the first probe settled: nothing is reported before. */
  reachable: boolean | undefined;
  since: string;
  firstFailureAt: string | undefined;
}

export interface WitnessProberStats {
  probes: number;
  failedProbes: number;
  /** Node reads (the list of peers, and the GET before each report write). */
  reads: number;
  /** Report writes (PUTs of the own Node). */
  writes: number;
  targets: number;
}

/**
 * The agent half of peer witnesses (docs/witnesses.md): probes the peers this node witnesses (`witness-choice.ts`)
 * every interval and publishes, on its own Node only, what changed: "unreachable since T" after
 * UNREACHABLE_AFTER_FAILURES failed probes, "reachable since T" on the first answer. A steady fleet writes nothing;
 * a failed write is tried again every interval until it goes through.
 */
export class WitnessProber {
  readonly #deps: WitnessProberDeps;
  readonly #targets = new Map<string, Target>();
  readonly #stats: WitnessProberStats = { probes: 0, failedProbes: 0, reads: 0, writes: 0, targets: 0 };
  #dirty = true;
  #refreshIn = 0;
  #refreshEvery = 1;
  #failingWrites = false;

  constructor(deps: WitnessProberDeps) {
    this.#deps = { ...deps, log: deps.log.child({ component: 'witness' }) };
  }

  async run(signal: AbortSignal): Promise<void> {
    try {
      while (!signal.aborted) {
        await this.tick(signal);
        await this.#deps.clock.sleep(this.#deps.config.intervalMs, signal);
      }
    } catch (err) {
      if (!isAbortError(err) && !signal.aborted) throw err;
    } finally {
      this.#deps.transport.close();
    }
  }

  stats(): WitnessProberStats {
    return { ...this.#stats, targets: this.#targets.size };
  }

  /** One round: read the peers when due, probe every target, publish what changed. */
  async tick(signal: AbortSignal): Promise<void> {
    if (this.#refreshIn-- <= 0) await this.#refresh(signal);
    await Promise.all([...this.#targets.values()].map((t) => this.#probe(t, signal)));
    if (this.#dirty) await this.#publish(signal);
  }

  async #refresh(signal: AbortSignal): Promise<void> {
    let nodes: Node[];
    try {
      nodes = (await this.#deps.client.nodes.list({ signal })).items;
      this.#stats.reads++;
    } catch (err) {
      if (signal.aborted) throw err;
      this.#deps.log.debug({ err: (err as Error).message }, 'could not list nodes for witness probes; retrying');
      this.#refreshIn = 0;
      return;
    }
    const { nodeName, zone, address, count } = this.#deps.config;
    const peers: WitnessPeer[] = [{ name: nodeName, zone, address }];
    for (const n of nodes) {
      const addr = n.metadata.annotations?.[WITNESS_ADDRESS_ANNOTATION];
      if (n.metadata.name === nodeName || addr === undefined || addr === '') continue;
      peers.push({ name: n.metadata.name, zone: zoneKeyOf(n.metadata.labels), address: addr });
    }
    const wanted = witnessTargets(nodeName, peers, count).slice(0, MAX_WITNESS_REPORT_ENTRIES);
    let changed = wanted.length !== this.#targets.size;
    const next = new Map<string, Target>();
    for (const peer of wanted) {
      const had = this.#targets.get(peer.name);
      if (had === undefined) changed = true;
      next.set(peer.name, had ? { ...had, peer } : newTarget(peer));
    }
    for (const [name, t] of this.#targets) if (!next.has(name) && t.reachable !== undefined) this.#dirty = true;
    this.#targets.clear();
    for (const [name, t] of next) this.#targets.set(name, t);
    this.#refreshEvery = changed ? 1 : Math.min(this.#refreshEvery * 2, MAX_REFRESH_INTERVALS);
    this.#refreshIn = this.#refreshEvery - 1;
    if (changed) this.#deps.log.info({ targets: wanted.map((p) => p.name) }, 'witnessing these peers');
  }

  async #probe(t: Target, signal: AbortSignal): Promise<void> {
    const { clock, random, transport, config } = this.#deps;
    const nonce = Math.floor(random.next() * 2 ** 48).toString(36);
    const timer = new AbortController();
    const onAbort = (): void => timer.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const timeout = clock.sleep(config.timeoutMs, timer.signal).then(
      () => timer.abort(),
      () => undefined,
    );
    let ok = false;
    try {
      const answer = await transport.probe(t.peer.address, nonce, timer.signal);
      ok = answer.node === t.peer.name && answer.nonce === nonce;
      // Another node answers at that address: the peer moved; read the list again next round.
      if (!ok) this.#refreshIn = 0;
    } catch {
      ok = false;
    } finally {
      signal.removeEventListener('abort', onAbort);
      timer.abort();
      await timeout;
    }
    if (signal.aborted) return;
    this.#stats.probes++;
    this.#observe(t, ok);
  }

  #observe(t: Target, ok: boolean): void {
    const now = formatTime(this.#deps.clock.now());
    if (ok) {
      t.failures = 0;
      t.firstFailureAt = undefined;
      if (t.reachable !== true) {
        t.reachable = true;
        t.since = now;
        this.#dirty = true;
      }
      return;
    }
    this.#stats.failedProbes++;
    t.failures++;
    t.firstFailureAt ??= now;
    if (t.failures >= UNREACHABLE_AFTER_FAILURES && t.reachable !== false) {
      t.reachable = false;
      t.since = t.firstFailureAt;
      this.#dirty = true;
    }
  }

  async #publish(signal: AbortSignal): Promise<void> {
    const report = new Map<string, { reachable: boolean; since: string }>();
    for (const [name, t] of this.#targets)
      if (t.reachable !== undefined) report.set(name, { reachable: t.reachable, since: t.since });
    try {
      const cost = await publishWitnessState(this.#deps.client, this.#deps.config, report, signal);
      this.#stats.reads += cost.reads;
      this.#stats.writes += cost.writes;
      this.#dirty = false;
      if (this.#failingWrites) this.#deps.log.info('witness report written again');
      this.#failingWrites = false;
    } catch (err) {
      if (signal.aborted) throw err;
      if (!this.#failingWrites)
        this.#deps.log.warn({ err: (err as Error).message }, 'could not write the witness report; retrying');
      this.#failingWrites = true;
    }
  }
}

function newTarget(peer: WitnessPeer): Target {
  return { peer, failures: 0, reachable: undefined, since: '', firstFailureAt: undefined };
}
