import type { Registry } from 'prom-client';
import type { ApiClient } from '../../client/api-client.js';
import type { ObjectCache } from '../../client/object-cache.js';
import { isAbortError, type Clock } from '../../core/clock.js';
import type { Lease } from '../../core/lease.js';
import type { Logger } from '../../core/logger.js';
import { zoneObjectName, type Node } from '../../core/node.js';
import type { Random } from '../../core/random.js';
import { ANNOTATION_CIRCUIT_BREAKER, ANNOTATION_MASTER_DISRUPTION } from '../../core/zone.js';
import type { NodeLifecycleConfig } from './config.js';
import { ConsistencyStore, noopConsistencyStore } from './consistency-store.js';
import { ZoneBook, type DisruptionOutcome } from './disruption.js';
import { CONTROLLER_OBJECT, EventRecorder } from './events.js';
import { NodeLifecycleMetrics } from './metrics.js';
import {
  confirmMark,
  judgeCached,
  settleNode,
  type EvaluatorDeps,
  type Judged,
  type ShortCircuit,
  type Verdict,
} from './node-evaluator.js';
import type { NodeHealth } from './node-health.js';
import { KnownNodes } from './known-nodes.js';
import { mapLimit } from './map-limit.js';
import { commitWritten, type NodeRecord } from './node-record.js';
import { PauseDetector } from './pause-detector.js';
import { TaintReconciler, type TaintPlan } from './taint-reconciler.js';
import { announceLeaseProblems, announceReadyChange, announceZones } from './pass-events.js';
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
  zones: Array<{
    zone: string;
    state: ZoneState;
    evictionRate: number;
    nodes: number;
    notReady: number;
    queued: string[];
    queueLength: number;
  }>;
  breaker: {
    enabled: boolean;
    holding: boolean;
    trips: number;
    lastError?: string;
    pending: Array<{ resource: string; writtenRv: string; cachedRv: string }>;
  };
  healthRecords: number;
  passes: number;
}

const SYNC_POLL_MS = 100;
const SNAPSHOT_QUEUE_LIMIT = 50;

/**
 * The node lifecycle controller (`pkg/controller/nodelifecycle`) with shepherd's decisions
 * (docs/node-lifecycle.md#decisions): one loop, never concurrent with itself, running a monitor pass every period
 * (evaluate → zones and limiters → taints) and the NoExecute tainter every tainter period in between. Nodes and
 * leases are read only through the informer caches.
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
  /** knownNodeSet and nodeHealthMap in one (see NodeRecord). */
  readonly #nodes = new KnownNodes();
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
    this.#consistency = deps.config.leaseCircuitBreaker
      ? new ConsistencyStore({ leases: deps.leases })
      : noopConsistencyStore;
    this.#evalDeps = {
      client: deps.client,
      leases: deps.leases,
      clock: deps.clock,
      config: deps.config,
      consistency: this.#consistency,
    };
    this.#zones = new ZoneBook(deps.config, deps.clock);
    this.#events = new EventRecorder({
      client: deps.client,
      clock: deps.clock,
      log: deps.log,
      ...(deps.identity === undefined ? {} : { host: deps.identity }),
    });
    this.#metrics = new NodeLifecycleMetrics(deps.metrics);
    this.#taints = new TaintReconciler({
      client: deps.client,
      nodes: deps.nodes,
      clock: deps.clock,
      log: deps.log,
      zones: this.#zones,
      events: this.#events,
      metrics: this.#metrics,
    });
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
      return {
        zone,
        state,
        evictionRate: this.#zones.rate(zone),
        nodes: counts.get(zone)?.nodes ?? 0,
        notReady: counts.get(zone)?.notReady ?? 0,
        queued: zq ? zq.queue.values().slice(0, SNAPSHOT_QUEUE_LIMIT) : [],
        queueLength: zq ? zq.queue.size() : 0,
      };
    });
    const breaker = {
      enabled: this.#cfg.leaseCircuitBreaker,
      holding: this.#holding,
      trips: this.#trips,
      pending: this.#consistency.pending(),
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
    let healthRecords = 0;
    for (const rec of this.#nodes.values()) if (rec.health !== undefined) healthRecords++;
    return { masterDisruption: this.#zones.inMasterDisruption(), zones, breaker, healthRecords, passes: this.#passes };
  }

  /** The health record of a node (a copy), for inspection; undefined when there is none. */
  healthOf(name: string): NodeHealth | undefined {
    const h = this.#nodes.get(name)?.health;
    return h ? { ...h } : undefined;
  }

  #exclusive(fn: () => Promise<void>): Promise<void> {
    const run = this.#serial.then(fn);
    this.#serial = run.catch(() => undefined);
    return run;
  }

  /**
   * One pass (docs/node-lifecycle.md#one-pass): judge every node from the caches synchronously, in name order;
   * only nodes that are past their grace and would change when marked go through check B and the write, 8 at a
   * time; then zones and limiters; then taints (docs/node-lifecycle.md#d5-one-loop-in-a-fixed-order). A steady
   * node (the same cached node and lease objects as last pass) costs a few identity comparisons per loop: nothing
   * is copied or allocated, no promise is made for it.
   */
  async #pass(): Promise<void> {
    const now = this.#d.clock.monotonic();
    const gap = this.#pause.passStarted(now);
    if (gap !== undefined) this.#freshGrace(now, gap);
    // The cache's own array when it offers one: read synchronously below, and copied before the first await.
    let nodes = this.#taints.freshenAll(this.#d.nodes.sortedView?.() ?? this.#d.nodes.list());
    const first = nodes[0];
    if (first !== undefined) {
      // Check A once for the pass: no await separates the nodes' synchronous judgements
      // (docs/node-lifecycle.md#d16-check-b-only-before-a-write).
      const notReady = this.#consistency.ensureReady();
      if (notReady) return this.#abandon({ kind: 'short-circuit', node: first.metadata.name, error: notReady });
    }
    const { recs, marks } = this.#nodes.judge(
      nodes,
      this.#d.leases.sortedView?.() ?? this.#d.leases.list(),
      now,
      this.#cfg,
    );
    if (marks.length === 0) {
      // The steady state: nothing to confirm or write, so no await before the taint plans are made.
      this.#classify(nodes, recs);
      return this.#afterJudgement(nodes, recs, new Map());
    }
    const owned = (nodes = nodes.slice());
    let tripped: ShortCircuit | undefined;
    const verdicts = await mapLimit(
      marks,
      this.#cfg.nodeWorkers,
      async (i): Promise<Verdict> => {
        const v = await confirmMark(this.#evalDeps, judgeCached(this.#evalDeps, recs[i]?.health, owned[i] as Node));
        if (v.kind === 'short-circuit') tripped ??= v;
        return v;
      },
      () => tripped !== undefined,
    );
    if (tripped) return this.#abandon(tripped);
    this.#classify(owned, recs);
    const settled = await mapLimit(verdicts as Judged[], this.#cfg.nodeWorkers, (v) => settleNode(this.#evalDeps, v));
    const written = new Map<number, Judged>();
    settled.forEach((s, k) => {
      const i = marks[k] as number;
      const rec = recs[i] as NodeRecord;
      if (s.kind === 'judged') {
        commitWritten(rec, s.health, s.current);
        owned[i] = s.node;
        written.set(i, s);
        if (s.marked) this.#taints.remember(s.node);
      } else if (s.kind === 'skipped') {
        rec.passSkipped = true;
        this.#d.log.warn(
          { err: s.error, node: s.node },
          'could not update node health; skipping the node for this pass',
        );
      } else tripped ??= s;
    });
    if (tripped) return this.#abandon(tripped);
    return this.#afterJudgement(owned, recs, written);
  }

  /**
   * Zones and limiters, then taints (docs/node-lifecycle.md#d5-one-loop-in-a-fixed-order). Synchronous until the
   * taint plans are made: `nodes` may be the cache's own array.
   */
  async #afterJudgement(
    nodes: readonly Node[],
    recs: readonly NodeRecord[],
    written: ReadonlyMap<number, Judged>,
  ): Promise<void> {
    this.#holding = false;
    this.#metrics.breakerHolding.set(0);
    const now = this.#d.clock.monotonic();
    const { readyByZone, unsettled } = this.#nodes.tally(nodes, recs, (rec, node, i) => {
      if (rec.ready !== rec.passStatus)
        announceReadyChange(this.#events, rec, node, rec.passCurrent, written.get(i), now);
      if (rec.lease !== rec.leaseChecked) this.#checkLease(rec, node);
    });
    const outcome = this.#zones.handleTallies(readyByZone);
    for (const z of outcome.initial) this.#d.log.info({ zone: z }, 'Setting initial state for unseen zone');
    announceZones(this.#events, this.#d.log, outcome);
    if (outcome.transition === 'exit') {
      // Every node gets a fresh grace: the outage may have been ours. Only existing records
      // (docs/node-lifecycle.md#d9-no-crash-without-a-health-record).
      for (const rec of this.#nodes.values())
        if (rec.health) rec.health.probeTimestamp = rec.health.readyTransitionTimestamp = now;
    }
    const master = this.#zones.inMasterDisruption();
    await mapLimit(this.#taintPlans(nodes, recs, master ? undefined : unsettled, master), this.#cfg.nodeWorkers, (p) =>
      this.#taints.apply(p),
    );
    await this.#taints.tainterPass();
    this.#lastCounts = outcome.counts;
    this.#metrics.setZones(outcome.counts);
    this.#metrics.masterDisruption.set(master ? 1 : 0);
    this.#lastZones = new Map(
      outcome.counts.map((c): [string, DesiredZone] => [
        zoneObjectName(c.zone),
        {
          status: {
            state: this.#zones.state(c.zone) ?? 'Initial',
            nodes: c.nodes,
            notReady: c.notReady,
            evictionRate: this.#zones.rate(c.zone),
          },
          annotations: master ? { [ANNOTATION_MASTER_DISRUPTION]: 'true' } : ({} as Record<string, string>),
        },
      ]),
    );
    await this.#zoneObjects.sync(this.#lastZones);
  }

  /**
   * The renew-interval warning (docs/node-lifecycle.md#d13-upstream-defaults-and-safety-checks) for a node whose
   * cached lease changed: the warning depends only on the lease duration.
   */
  #checkLease(rec: NodeRecord, node: Node): void {
    rec.leaseChecked = rec.lease;
    const lease = rec.health?.lease;
    if (lease === undefined || lease.spec.leaseDurationSeconds === rec.leaseCheckedDuration) return;
    announceLeaseProblems(this.#events, this.#d.log, this.#leaseWarned, node, lease, this.#cfg);
    rec.leaseCheckedDuration = lease.spec.leaseDurationSeconds;
  }

  /**
   * Queue bookkeeping in name order for the nodes `KnownNodes.tally` found unsettled (every node in master-disruption
   * mode: `only` undefined), and the few taint writes it calls for. A Ready node outside master-disruption mode whose
   * copy was already found clean is skipped: its reconcile would only `forget` it from a queue it cannot be in (only
   * this node's own reconcile queues it).
   */
  #taintPlans(
    nodes: readonly Node[],
    recs: readonly NodeRecord[],
    only: readonly number[] | undefined,
    master: boolean,
  ): TaintPlan[] {
    const plans: TaintPlan[] = [];
    const count = only === undefined ? nodes.length : only.length;
    for (let k = 0; k < count; k++) {
      const i = only === undefined ? k : (only[k] as number);
      const rec = recs[i] as NodeRecord;
      if (rec.passSkipped) continue;
      const node = nodes[i] as Node;
      const steady = !master && rec.passStatus === 'True';
      const plan = this.#taints.prepare(node, rec.passCurrent, master);
      rec.taintsClean = steady && plan === undefined ? node : undefined;
      if (plan) plans.push(plan);
    }
    return plans;
  }

  /**
   * docs/node-lifecycle.md#d4-abandon-the-whole-pass: nothing of the pass is kept; say why, once, and show it on
   * every Zone object.
   */
  async #abandon(sc: ShortCircuit): Promise<void> {
    this.#d.log.warn(
      { node: sc.node, err: sc.error },
      'Update health of Node from Controller error, Skipping - no pods will be evicted',
    );
    this.#holding = true;
    this.#lastError = sc.error.message;
    this.#metrics.breakerHolding.set(1);
    if (sc.error.name !== 'ConsistencyError') {
      this.#trips++;
      this.#metrics.breakerTrips.inc();
    }
    if (sc.stale) {
      const uid = this.#nodes.get(sc.node)?.uid;
      this.#events.emit(
        { kind: 'Node', name: sc.node, ...(uid ? { uid } : {}) },
        'Warning',
        'LeaseCacheStale',
        `Lease cache is stale for node ${sc.node}: cached resourceVersion ${sc.stale.cachedRv || '(none)'}, live resourceVersion ${sc.stale.liveRv}; no node is judged until the cache catches up`,
      );
    }
    const note = `holding: ${sc.error.message}`.slice(0, 1000);
    const desired = new Map(
      [...this.#lastZones].map(([name, z]) => [
        name,
        { status: z.status, annotations: { ...z.annotations, [ANNOTATION_CIRCUIT_BREAKER]: note } },
      ]),
    );
    await this.#zoneObjects.sync(desired);
  }

  /** RegisteredNode / RemovingNode and zone queues for the nodes listed in a pass that was not abandoned. */
  #classify(nodes: readonly Node[], recs: NodeRecord[]): void {
    const { added, removed, moved } = this.#nodes.register(nodes, recs);
    for (const rec of added) {
      this.#events.emit(
        { kind: 'Node', name: rec.name, uid: rec.uid },
        'Normal',
        'RegisteredNode',
        `Node ${rec.name} event: Registered Node ${rec.name} in Controller`,
      );
      this.#zones.queueFor(rec.zone);
    }
    for (const { rec, from } of moved) {
      this.#zones.forget(from, rec.name);
      this.#zones.queueFor(rec.zone);
    }
    for (const { name, uid, zone } of removed) {
      this.#events.emit(
        { kind: 'Node', name, uid },
        'Normal',
        'RemovingNode',
        `Node ${name} event: Removing Node ${name} from Controller`,
      );
      this.#zones.forget(zone, name);
      this.#leaseWarned.delete(name);
      this.#taints.forget(name);
    }
    // Only this pass's membership or zone changes can leave a queue without nodes.
    if (added.length + moved.length + removed.length > 0)
      this.#zones.retainQueues(new Set([...this.#nodes.values()].map((r) => r.zone)));
  }

  #freshGrace(now: number, gapMs: number): void {
    for (const rec of this.#nodes.values())
      if (rec.health) rec.health.probeTimestamp = rec.health.readyTransitionTimestamp = now;
    const secs = Math.floor(gapMs / 1000);
    this.#d.log.warn({ gapMs }, 'node lifecycle controller was paused; giving every node a fresh grace period');
    this.#events.emit(
      CONTROLLER_OBJECT,
      'Warning',
      'ControllerPaused',
      `Node lifecycle controller did not run for ${secs}s (more than one monitor period plus the grace period); every node gets a fresh grace period instead of being judged on silence the controller did not watch`,
    );
  }
}
