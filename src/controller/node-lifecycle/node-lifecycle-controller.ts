import type { Registry } from 'prom-client';
import type { ApiClient } from '../../client/api-client.js';
import type { ObjectCache } from '../../client/object-cache.js';
import type { Clock } from '../../core/clock.js';
import type { Lease } from '../../core/lease.js';
import type { Logger } from '../../core/logger.js';
import type { Node } from '../../core/node.js';
import type { Random } from '../../core/random.js';
import type { BreakerView } from './breaker-status.js';
import type { NodeLifecycleConfig } from './config.js';
import { ConsistencyError } from './consistency-store.js';
import { runLoop } from './controller-loop.js';
import { buildParts, type ControllerParts } from './controller-parts.js';
import type { ZoneSnapshot } from './disruption.js';
import type { NodeLifecycleMetrics } from './metrics.js';
import type { VerdictSink } from './events.js';
import { mapLimit } from './map-limit.js';
import type { PassSlicer } from './pass-slicer.js';
import type { Judged, ShortCircuit } from './node-evaluator.js';
import type { NodeHealth } from './node-health.js';
import type { NodeRecord } from './node-record.js';
import {
  announceMembership,
  announcePause,
  announceReadyChange,
  announceStaleLeaseCache,
  announceZones,
} from './pass-events.js';
import { confirmMarks, writeMarks, type MarkDeps } from './pass-marks.js';
import { draftHolds, draftMarks, draftReady } from './pass-verdicts.js';
import { zoneNotes } from './zone-notes.js';

export interface NodeLifecycleControllerDeps {
  client: ApiClient;
  nodes: ObjectCache<Node>;
  leases: ObjectCache<Lease>;
  clock: Clock;
  log: Logger;
  random?: Random;
  /** A registry to register the metrics on, or metrics built once per process (a leader's terms share them). */
  metrics?: Registry | NodeLifecycleMetrics;
  config: NodeLifecycleConfig;
  identity?: string;
  /** Where the controller's Verdicts go (docs/verdicts.md); default `client.verdicts`. */
  verdicts?: VerdictSink;
  /**
   * Run as a dry-run controller (docs/verdicts.md#dry-run): every write but a verdict is refused by the client
   * (`refuseWrites`), node writes are simulated (`ShadowNodes`), no event or Zone object is written, verdicts say
   * `dryRun: true` and the metrics are `shepherd_node_lifecycle_dry_run_*`.
   */
  dryRun?: boolean;
  /**
   * How the pass's walks are cut into slices (docs/node-lifecycle.md#a-pass-in-slices); default: PASS_SLICE_MS on
   * `clock`, stepping aside for one turn of the event loop.
   */
  slicer?: PassSlicer;
}

export interface ControllerSnapshot {
  masterDisruption: boolean;
  /** At most SNAPSHOT_QUEUE_LIMIT queued names per zone. */
  zones: ZoneSnapshot[];
  breaker: BreakerView;
  healthRecords: number;
  passes: number;
}

const SNAPSHOT_QUEUE_LIMIT = 50;

/**
 * The node lifecycle controller (`pkg/controller/nodelifecycle`) with shepherd's decisions
 * (docs/node-lifecycle.md#decisions): one loop, never concurrent with itself, running a monitor pass every period
 * (evaluate → zones and limiters → taints) and the NoExecute tainter every tainter period in between. Nodes and
 * leases are read only through the informer caches.
 */
export class NodeLifecycleController {
  readonly #deps: NodeLifecycleControllerDeps;
  readonly #cfg: NodeLifecycleConfig;
  readonly #p: ControllerParts;
  readonly #marking: MarkDeps;
  /** Nodes a Hold verdict was written for since the breaker started holding (one verdict per node and hold). */
  readonly #held = new Set<string>();
  #passes = 0;
  #serial: Promise<unknown> = Promise.resolve();

  constructor(deps: NodeLifecycleControllerDeps) {
    this.#deps = deps;
    this.#cfg = deps.config;
    this.#p = buildParts(deps);
    this.#marking = { evalDeps: this.#p.evalDeps, writes: this.#p.writes, log: deps.log };
  }

  run(signal: AbortSignal): Promise<void> {
    const { clock, log, nodes, leases } = this.#deps;
    return runLoop(
      {
        clock,
        log,
        synced: () => nodes.hasSynced() && leases.hasSynced(),
        periodMs: this.#cfg.nodeMonitorPeriodMs,
        tainterPeriodMs: this.#cfg.tainterPeriodMs,
        pass: () => this.monitorNodeHealth(signal),
        tainter: () => this.doNoExecuteTaintingPass(),
      },
      signal,
    );
  }

  /**
   * One pass. Once `signal` is aborted (the controller is stopping, or lost its lease) the pass starts no more
   * writes: the ones in flight finish, what was written gets its verdicts, and the rest is left to the next pass.
   */
  monitorNodeHealth(signal?: AbortSignal): Promise<void> {
    const stopped = (): boolean => signal?.aborted === true;
    return this.#exclusive(async () => {
      const start = this.#deps.clock.monotonic();
      try {
        await this.#pass(stopped);
      } finally {
        this.#passes++;
        this.#p.metrics.passDuration.observe((this.#deps.clock.monotonic() - start) / 1000);
        await this.#p.events.flush();
      }
    });
  }

  doNoExecuteTaintingPass(): Promise<void> {
    return this.#exclusive(async () => {
      await this.#p.taints.tainterPass();
      this.#p.verdicts.resolve();
      await this.#p.events.flush();
    });
  }

  snapshot(): ControllerSnapshot {
    const zones = this.#p.zones.snapshot(SNAPSHOT_QUEUE_LIMIT);
    const breaker = this.#p.breaker.view(this.#cfg.leaseCircuitBreaker, this.#p.consistency.pending());
    let healthRecords = 0;
    for (const rec of this.#p.nodes.values()) if (rec.health !== undefined) healthRecords++;
    return {
      masterDisruption: this.#p.zones.inMasterDisruption(),
      zones,
      breaker,
      healthRecords,
      passes: this.#passes,
    };
  }

  /** The health record of a node (a copy), for inspection; undefined when there is none. */
  healthOf(name: string): NodeHealth | undefined {
    const h = this.#p.nodes.get(name)?.health;
    return h ? { ...h } : undefined;
  }

  #exclusive(fn: () => Promise<void>): Promise<void> {
    const run = this.#serial.then(fn);
    this.#serial = run.catch(() => undefined);
    return run;
  }

  /**
   * One pass (docs/node-lifecycle.md#one-pass): judge every node in name order from the pass's own snapshot of the
   * caches, in slices (docs/node-lifecycle.md#a-pass-in-slices); only nodes that are past their grace and would
   * change when marked go through check B and the write, 8 at a time; then zones and limiters; then taints
   * (docs/node-lifecycle.md#d5-one-loop-in-a-fixed-order). A steady node (the same cached node and lease objects as
   * last pass) costs a few identity comparisons per walk: nothing is copied or allocated, no promise is made for it.
   */
  async #pass(stopped: () => boolean): Promise<void> {
    const now = this.#deps.clock.monotonic();
    const gap = this.#p.pause.passStarted(now);
    if (gap !== undefined) {
      this.#p.nodes.freshGrace(now);
      this.#p.detection?.reset(now);
      announcePause(this.#p.events, this.#deps.log, gap);
    }
    this.#p.slicer.begin();
    // Copies of the caches' sorted lists, taken together: the walks below step aside while the caches move on.
    const nodes = this.#p.writes.overlay(this.#deps.nodes.list());
    const leases = this.#deps.leases.list();
    // Check A once for the pass, on the snapshot it judges (docs/node-lifecycle.md#d16-check-b-only-before-a-write):
    // the lease cache is the snapshot's until the next await, so the answer holds for every judgement below.
    const notReady = nodes.length > 0 ? this.#p.consistency.ensureReady() : undefined;
    const { recs, marks } = await this.#p.nodes.judge(nodes, leases, now, this.#cfg, this.#p.slicer);
    if (notReady !== undefined) {
      // A hold names the nodes it holds: the ones the judgement would have marked.
      const node = (nodes[0] as Node).metadata.name;
      return this.#abandon({ kind: 'short-circuit', node, error: notReady }, nodes, recs, marks);
    }
    // Nothing is committed yet: a stopping controller leaves the whole judgement to the next leader.
    if (stopped()) return;
    this.#p.witnesses?.beginPass(nodes);
    if (marks.length === 0) {
      // The steady state: nothing to confirm or write.
      await this.#classify(nodes, recs);
      return this.#afterJudgement(nodes, recs, new Map(), stopped);
    }
    const confirmed = await confirmMarks(this.#marking, nodes, recs, marks, stopped);
    if (!Array.isArray(confirmed)) return this.#abandon(confirmed, nodes, recs, marks);
    if (stopped()) return;
    await this.#classify(nodes, recs);
    const written = await writeMarks(this.#marking, confirmed, nodes, recs, marks, stopped);
    if (!(written instanceof Map)) return this.#abandon(written, nodes, recs, marks);
    if (stopped()) {
      // What was written is in the store: its verdicts still go out (the pacer flushes after the pass).
      draftMarks(this.#p.verdicts, written, recs, this.#deps.clock, this.#cfg.detection);
      this.#p.verdicts.resolve();
      return;
    }
    return this.#afterJudgement(nodes, recs, written, stopped);
  }

  /** Zones and limiters, then taints (docs/node-lifecycle.md#d5-one-loop-in-a-fixed-order), over the pass's snapshot. */
  async #afterJudgement(
    nodes: readonly Node[],
    recs: readonly NodeRecord[],
    written: ReadonlyMap<number, Judged>,
    stopped: () => boolean,
  ): Promise<void> {
    this.#p.breaker.release();
    if (this.#held.size > 0) this.#held.clear();
    const { clock } = this.#deps;
    const now = clock.monotonic();
    if (written.size > 0) draftMarks(this.#p.verdicts, written, recs, clock, this.#cfg.detection);
    const { readyByZone, unsettled } = await this.#p.nodes.tally(
      nodes,
      recs,
      (rec, node, i) => {
        if (rec.ready !== rec.passStatus) {
          const back = announceReadyChange(this.#p.events, rec, node, rec.passCurrent, written.get(i), clock);
          // A new node's first Ready (from no Ready condition) is no decision: only a return from False or Unknown.
          if (back === 'False' || back === 'Unknown') {
            draftReady(this.#p.verdicts, rec, node, back, this.#cfg);
            this.#p.detection?.returnedReady(rec, now);
          }
        }
        if (rec.lease !== rec.leaseChecked) this.#p.leaseWarnings.check(rec, node);
      },
      this.#p.slicer,
    );
    const outcome = this.#p.zones.handleTallies(readyByZone);
    for (const z of outcome.initial) this.#deps.log.info({ zone: z }, 'Setting initial state for unseen zone');
    announceZones(this.#p.events, this.#deps.log, outcome);
    // Every node gets a fresh grace: the outage may have been ours. Only existing records
    // (docs/node-lifecycle.md#d9-no-crash-without-a-health-record).
    if (outcome.transition === 'exit') {
      this.#p.nodes.freshGrace(now);
      this.#p.detection?.reset(now);
    }
    // Decided here, before the taint plans; written after the taints.
    const detected = await this.#p.detection?.learn(nodes, recs, now, this.#p.slicer);
    const master = this.#p.zones.inMasterDisruption();
    const plans = this.#p.taints.plan(nodes, recs, master ? undefined : unsettled, master);
    // Verdicts of this pass's marks and queueing, with the queue as the reconcile left it.
    this.#p.verdicts.resolve();
    await mapLimit(plans, this.#cfg.nodeWorkers, (p) => this.#p.taints.apply(p), stopped);
    if (!stopped()) await this.#p.taints.tainterPass();
    if (detected) await this.#p.detection?.apply(detected, stopped);
    this.#p.verdicts.resolve();
    this.#p.metrics.setZones(outcome.counts);
    this.#p.metrics.masterDisruption.set(master ? 1 : 0);
    await this.#p.zoneObjects?.report(
      outcome.counts,
      (c) => this.#p.zones.status(c),
      master,
      (c) => zoneNotes(this.#p.settings, this.#p.queues, c.zone, this.#deps.clock),
    );
  }

  /**
   * docs/node-lifecycle.md#d4-abandon-the-whole-pass: nothing of the pass is kept; say why, once, and show it on
   * every Zone object.
   */
  async #abandon(
    sc: ShortCircuit,
    nodes: readonly Node[],
    recs: readonly NodeRecord[],
    marks: readonly number[],
  ): Promise<void> {
    this.#deps.log.warn(
      { node: sc.node, err: sc.error },
      'Update health of Node from Controller error, Skipping - no pods will be evicted',
    );
    this.#p.breaker.hold(sc.error, !(sc.error instanceof ConsistencyError));
    const now = this.#deps.clock.monotonic();
    if (sc.stale) announceStaleLeaseCache(this.#p.events, this.#p.nodes.get(sc.node), sc, this.#cfg, now);
    draftHolds(this.#p.verdicts, this.#held, marks, recs, nodes, sc, this.#cfg, now);
    this.#p.verdicts.resolve();
    await this.#p.zoneObjects?.reportHolding(`holding: ${sc.error.message}`.slice(0, 1000));
  }

  /** RegisteredNode / RemovingNode and zone queues for the nodes listed in a pass that was not abandoned. */
  async #classify(nodes: readonly Node[], recs: NodeRecord[]): Promise<void> {
    const changes = await this.#p.nodes.register(nodes, recs, this.#p.slicer);
    announceMembership(this.#p.events, changes);
    this.#p.queues.track(changes, () => [...this.#p.nodes.values()].map((r) => r.zone));
    for (const { name } of changes.removed) {
      this.#p.leaseWarnings.forget(name);
      this.#p.writes.forget(name);
      this.#p.detection?.forget(name);
    }
  }
}
