import type { Registry } from 'prom-client';
import type { ApiClient } from '../../client/api-client.js';
import type { ObjectCache } from '../../client/object-cache.js';
import { isAbortError, type Clock } from '../../core/clock.js';
import type { Lease } from '../../core/lease.js';
import type { Logger } from '../../core/logger.js';
import { EXCLUDE_DISRUPTION_LABEL, zoneKeyOf, zoneObjectName, type Node, type NodeCondition } from '../../core/node.js';
import type { Random } from '../../core/random.js';
import { ANNOTATION_CIRCUIT_BREAKER, ANNOTATION_MASTER_DISRUPTION } from '../../core/zone.js';
import type { NodeLifecycleConfig } from './config.js';
import { ConsistencyStore, noopConsistencyStore } from './consistency-store.js';
import { ZoneBook, type DisruptionOutcome } from './disruption.js';
import { CONTROLLER_OBJECT, EventRecorder } from './events.js';
import { NodeLifecycleMetrics } from './metrics.js';
import { judgeNode, settleNode, type EvaluatorDeps, type Judged, type Settled, type ShortCircuit, type Verdict } from './node-evaluator.js';
import type { NodeHealth } from './node-health.js';
import { PauseDetector } from './pause-detector.js';
import { TaintReconciler } from './taint-reconciler.js';
import { announceLeaseProblems, announceReadyChange, announceZones, type KnownNode } from './pass-events.js';
import type { ZoneState } from './zone-state.js';
import { ZoneObjectSync, type DesiredZone } from './zone-objects.js';

export interface NodeLifecycleControllerDeps {
  client: ApiClient;
  nodes: ObjectCache<Node>;
  leases: ObjectCache<Lease>;
  clock: Clock;
  log: Logger;
  random?: Random;
  metrics?: Registry;
  config: NodeLifecycleConfig;
  identity?: string;
}

export interface ControllerSnapshot {
  masterDisruption: boolean;
  /** `queued`: the first SNAPSHOT_QUEUE_LIMIT names waiting for a NoExecute taint, in order; `queueLength`: all. */
  zones: Array<{ zone: string; state: ZoneState; evictionRate: number; nodes: number; notReady: number; queued: string[]; queueLength: number }>;
  breaker: { enabled: boolean; holding: boolean; trips: number; lastError?: string; pending: Array<{ resource: string; writtenRv: string; cachedRv: string }> };
  healthRecords: number;
  passes: number;
}

const SYNC_POLL_MS = 100;
const SNAPSHOT_QUEUE_LIMIT = 50;

/** Runs `fn` over items, `limit` at a time, results in input order; stops starting new items once `stop()` is true. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>, stop: () => boolean = () => false): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stop()) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The node lifecycle controller (`pkg/controller/nodelifecycle`) with shepherd's DECISIONS: one loop, never
 * concurrent with itself, running a monitor pass every period (evaluate → zones and limiters → taints) and the
 * NoExecute tainter every tainter period in between. Nodes and leases are read only through the informer caches.
 */
export class NodeLifecycleController {
  readonly #d: NodeLifecycleControllerDeps;
  readonly #cfg: NodeLifecycleConfig;
  readonly #consistency: Pick<ConsistencyStore, 'wroteAt' | 'ensureReady' | 'pending'>;
  readonly #evalDeps: EvaluatorDeps;
  readonly #zones: ZoneBook;
  readonly #events: EventRecorder;
  readonly #metrics: NodeLifecycleMetrics;
  readonly #taints: TaintReconciler;
  readonly #zoneObjects: ZoneObjectSync;
  readonly #pause: PauseDetector;
  readonly #health = new Map<string, NodeHealth>();
  readonly #known = new Map<string, KnownNode>();
  readonly #leaseWarned = new Map<string, number>();
  #lastZones = new Map<string, DesiredZone>();
  #lastCounts: DisruptionOutcome['counts'] = [];
  #holding = false;
  #trips = 0;
  #lastError: string | undefined;
  #passes = 0;
  #serial: Promise<unknown> = Promise.resolve();

  constructor(deps: NodeLifecycleControllerDeps) {
    this.#d = deps;
    this.#cfg = deps.config;
    this.#consistency = deps.config.leaseCircuitBreaker ? new ConsistencyStore({ leases: deps.leases }) : noopConsistencyStore;
    this.#evalDeps = { client: deps.client, leases: deps.leases, clock: deps.clock, config: deps.config, consistency: this.#consistency };
    this.#zones = new ZoneBook(deps.config, deps.clock);
    this.#events = new EventRecorder({ client: deps.client, clock: deps.clock, log: deps.log, ...(deps.identity === undefined ? {} : { host: deps.identity }) });
    this.#metrics = new NodeLifecycleMetrics(deps.metrics);
    this.#taints = new TaintReconciler({ client: deps.client, nodes: deps.nodes, clock: deps.clock, log: deps.log, zones: this.#zones, events: this.#events, metrics: this.#metrics });
    this.#zoneObjects = new ZoneObjectSync({ client: deps.client, log: deps.log });
    this.#pause = new PauseDetector(deps.config.nodeMonitorPeriodMs, deps.config.nodeMonitorGracePeriodMs);
  }

  async run(signal: AbortSignal): Promise<void> {
    const { clock, log } = this.#d;
    try {
      while (!this.#d.nodes.hasSynced() || !this.#d.leases.hasSynced()) await clock.sleep(SYNC_POLL_MS, signal);
    } catch (err) {
      if (isAbortError(err) || signal.aborted) return;
      throw err;
    }
    let nextPass = clock.monotonic();
    while (!signal.aborted) {
      const isPass = clock.monotonic() >= nextPass;
      try {
        if (isPass) await this.monitorNodeHealth();
        else await this.doNoExecuteTaintingPass();
      } catch (err) {
        log.error({ err }, 'node lifecycle pass failed; retrying at the next tick');
      }
      // Set even when the pass failed, so a failing pass cannot turn the loop into a busy loop.
      if (isPass) nextPass = clock.monotonic() + this.#cfg.nodeMonitorPeriodMs;
      try {
        await clock.sleep(Math.max(0, Math.min(this.#cfg.tainterPeriodMs, nextPass - clock.monotonic())), signal);
      } catch {
        return;
      }
    }
  }

  monitorNodeHealth(): Promise<void> {
    return this.#exclusive(async () => {
      const start = this.#d.clock.monotonic();
      try {
        await this.#pass();
      } finally {
        this.#passes++;
        this.#metrics.passDuration.observe((this.#d.clock.monotonic() - start) / 1000);
        await this.#events.flush();
      }
    });
  }

  doNoExecuteTaintingPass(): Promise<void> {
    return this.#exclusive(async () => {
      await this.#taints.tainterPass();
      await this.#events.flush();
    });
  }

  snapshot(): ControllerSnapshot {
    const counts = new Map(this.#lastCounts.map((c) => [c.zone, c]));
    const zones = this.#zones.states().map(([zone, state]) => {
      const zq = this.#zones.queues().find(([z]) => z === zone)?.[1];
      return { zone, state, evictionRate: this.#zones.rate(zone), nodes: counts.get(zone)?.nodes ?? 0, notReady: counts.get(zone)?.notReady ?? 0, queued: zq ? zq.queue.values().slice(0, SNAPSHOT_QUEUE_LIMIT) : [], queueLength: zq ? zq.queue.size() : 0 };
    });
    const breaker = { enabled: this.#cfg.leaseCircuitBreaker, holding: this.#holding, trips: this.#trips, pending: this.#consistency.pending(), ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }) };
    return { masterDisruption: this.#zones.inMasterDisruption(), zones, breaker, healthRecords: this.#health.size, passes: this.#passes };
  }

  /** The health record of a node (a copy), for inspection; undefined when there is none. */
  healthOf(name: string): NodeHealth | undefined {
    const h = this.#health.get(name);
    return h ? { ...h } : undefined;
  }

  #exclusive(fn: () => Promise<void>): Promise<void> {
    const run = this.#serial.then(fn);
    this.#serial = run.catch(() => undefined);
    return run;
  }

  async #pass(): Promise<void> {
    const now = this.#d.clock.monotonic();
    const gap = this.#pause.passStarted(now);
    if (gap !== undefined) this.#freshGrace(now, gap);
    const nodes = this.#d.nodes.list().map((n) => this.#taints.freshen(n));
    let tripped: ShortCircuit | undefined;
    const verdicts = await mapLimit(nodes, this.#cfg.nodeWorkers, async (n): Promise<Verdict> => {
      const v = await judgeNode(this.#evalDeps, this.#health.get(n.metadata.name), n);
      if (v.kind === 'short-circuit') tripped ??= v;
      return v;
    }, () => tripped !== undefined);
    if (tripped) return this.#abandon(tripped);
    this.#classify(nodes);
    const settled = await mapLimit(verdicts as Judged[], this.#cfg.nodeWorkers, (v): Promise<Settled> => (v.write ? settleNode(this.#evalDeps, v) : Promise.resolve(v)));
    const judged: Judged[] = [];
    for (const s of settled) {
      if (s.kind === 'judged') {
        this.#health.set(s.node.metadata.name, s.health);
        if (s.marked) this.#taints.remember(s.node);
        judged.push(s);
      } else if (s.kind === 'skipped') {
        this.#d.log.warn({ err: s.error, node: s.node }, 'could not update node health; skipping the node for this pass');
      } else tripped ??= s;
    }
    if (tripped) return this.#abandon(tripped);
    this.#holding = false;
    this.#metrics.breakerHolding.set(0);
    await this.#afterJudgement(judged);
  }

  async #afterJudgement(judged: Judged[]): Promise<void> {
    const now = this.#d.clock.monotonic();
    const readyByZone = new Map<string, Array<NodeCondition | undefined>>();
    for (const j of judged) {
      const labels = j.node.metadata.labels;
      announceReadyChange(this.#events, this.#known.get(j.node.metadata.name), j, now);
      announceLeaseProblems(this.#events, this.#d.log, this.#leaseWarned, j, this.#cfg);
      if (labels !== undefined && Object.hasOwn(labels, EXCLUDE_DISRUPTION_LABEL)) continue;
      const zone = zoneKeyOf(labels);
      let list = readyByZone.get(zone);
      if (!list) readyByZone.set(zone, (list = []));
      list.push(j.current);
    }
    const outcome = this.#zones.handleDisruption(readyByZone);
    for (const z of outcome.initial) this.#d.log.info({ zone: z }, 'Setting initial state for unseen zone');
    announceZones(this.#events, this.#d.log, outcome);
    if (outcome.transition === 'exit') {
      // Every node gets a fresh grace: the outage may have been ours. Only existing records (#141572).
      for (const h of this.#health.values()) h.probeTimestamp = h.readyTransitionTimestamp = now;
    }
    const master = this.#zones.inMasterDisruption();
    await mapLimit(judged, this.#cfg.nodeWorkers, (j) => this.#taints.reconcile(j.node, j.current, master));
    await this.#taints.tainterPass();
    this.#lastCounts = outcome.counts;
    this.#metrics.setZones(outcome.counts);
    this.#metrics.masterDisruption.set(master ? 1 : 0);
    this.#lastZones = new Map(outcome.counts.map((c): [string, DesiredZone] => [zoneObjectName(c.zone), {
      status: { state: this.#zones.state(c.zone) ?? 'Initial', nodes: c.nodes, notReady: c.notReady, evictionRate: this.#zones.rate(c.zone) },
      annotations: master ? { [ANNOTATION_MASTER_DISRUPTION]: 'true' } : ({} as Record<string, string>),
    }]));
    await this.#zoneObjects.sync(this.#lastZones);
  }

  /** DECISIONS 4: nothing of the pass is kept; say why, once, and show it on every Zone object. */
  async #abandon(sc: ShortCircuit): Promise<void> {
    this.#d.log.warn({ node: sc.node, err: sc.error }, 'Update health of Node from Controller error, Skipping - no pods will be evicted');
    this.#holding = true;
    this.#lastError = sc.error.message;
    this.#metrics.breakerHolding.set(1);
    if (sc.error.name !== 'ConsistencyError') {
      this.#trips++;
      this.#metrics.breakerTrips.inc();
    }
    if (sc.stale) {
      const uid = this.#known.get(sc.node)?.uid;
      this.#events.emit({ kind: 'Node', name: sc.node, ...(uid ? { uid } : {}) }, 'Warning', 'LeaseCacheStale',
        `Lease cache is stale for node ${sc.node}: cached resourceVersion ${sc.stale.cachedRv || '(none)'}, live resourceVersion ${sc.stale.liveRv}; no node is judged until the cache catches up`);
    }
    const note = `holding: ${sc.error.message}`.slice(0, 1000);
    const desired = new Map([...this.#lastZones].map(([name, z]) => [name, { status: z.status, annotations: { ...z.annotations, [ANNOTATION_CIRCUIT_BREAKER]: note } }]));
    await this.#zoneObjects.sync(desired);
  }

  /** RegisteredNode / RemovingNode and zone queues for the nodes listed in a pass that was not abandoned. */
  #classify(nodes: readonly Node[]): void {
    const listed = new Set<string>();
    for (const n of nodes) {
      const name = n.metadata.name;
      const zone = zoneKeyOf(n.metadata.labels);
      listed.add(name);
      const k = this.#known.get(name);
      if (!k) {
        this.#known.set(name, { uid: n.metadata.uid, zone, ready: undefined });
        this.#events.emit({ kind: 'Node', name, uid: n.metadata.uid }, 'Normal', 'RegisteredNode', `Node ${name} event: Registered Node ${name} in Controller`);
      } else if (k.zone !== zone) {
        this.#zones.forget(k.zone, name);
        k.zone = zone;
      }
      this.#zones.queueFor(zone);
    }
    const gone = [...this.#known.keys()].filter((name) => !listed.has(name)).sort();
    for (const name of gone) {
      const k = this.#known.get(name) as KnownNode;
      this.#events.emit({ kind: 'Node', name, uid: k.uid }, 'Normal', 'RemovingNode', `Node ${name} event: Removing Node ${name} from Controller`);
      this.#zones.forget(k.zone, name);
      this.#known.delete(name);
      this.#health.delete(name);
      this.#leaseWarned.delete(name);
      this.#taints.forget(name);
    }
    this.#zones.retainQueues(new Set([...this.#known.values()].map((k) => k.zone)));
  }

  #freshGrace(now: number, gapMs: number): void {
    for (const h of this.#health.values()) h.probeTimestamp = h.readyTransitionTimestamp = now;
    const secs = Math.floor(gapMs / 1000);
    this.#d.log.warn({ gapMs }, 'node lifecycle controller was paused; giving every node a fresh grace period');
    this.#events.emit(CONTROLLER_OBJECT, 'Warning', 'ControllerPaused',
      `Node lifecycle controller did not run for ${secs}s (more than one monitor period plus the grace period); every node gets a fresh grace period instead of being judged on silence the controller did not watch`);
  }
}
