import { AdaptiveDetection } from './adaptive-detection.js';
import { ConsistencyStore, noopConsistencyStore } from './consistency-store.js';
import { ZoneBook } from './disruption.js';
import { refuseWrites, simulatingClient } from './dry-run-client.js';
import { EventRecorder } from './events.js';
import { KnownNodes } from './known-nodes.js';
import { LeaseWarnings } from './lease-warnings.js';
import { NodeLifecycleMetrics } from './metrics.js';
import type { EvaluatorDeps } from './node-evaluator.js';
import type { NodeLifecycleControllerDeps } from './node-lifecycle-controller.js';
import { OwnWrites, type NodeOverlay } from './own-writes.js';
import { decisionContext } from './pass-verdicts.js';
import { eventLoopSlices, PassSlicer } from './pass-slicer.js';
import { PauseDetector } from './pause-detector.js';
import { ShadowNodes } from './shadow-nodes.js';
import { TaintReconciler } from './taint-reconciler.js';
import { BreakerStatus } from './breaker-status.js';
import { VerdictRecorder } from './verdict-recorder.js';
import { WitnessGate } from './witness-gate.js';
import { ZoneObjectSync } from './zone-objects.js';
import { ZoneQueues } from './zone-queues.js';
import { settingsNote } from './zone-notes.js';

/** The parts of one node lifecycle controller, wired together (the controller itself only sequences them). */
export interface ControllerParts {
  consistency: Pick<ConsistencyStore, 'wroteAt' | 'ensureReady' | 'pending'>;
  evalDeps: EvaluatorDeps;
  queues: ZoneQueues;
  zones: ZoneBook;
  /** How nodes are read: our own recent writes over the cache, or a dry-run's simulated ones. */
  writes: NodeOverlay;
  /** The one pacer of events and verdicts. */
  events: EventRecorder;
  metrics: NodeLifecycleMetrics;
  taints: TaintReconciler;
  /** Undefined for a dry-run controller, which writes no Zone object. */
  zoneObjects: ZoneObjectSync | undefined;
  pause: PauseDetector;
  /** Cuts the pass's walks into slices (docs/node-lifecycle.md#a-pass-in-slices). */
  slicer: PassSlicer;
  /** knownNodeSet and nodeHealthMap in one (see NodeRecord). */
  nodes: KnownNodes;
  leaseWarnings: LeaseWarnings;
  breaker: BreakerStatus;
  verdicts: VerdictRecorder;
  /** The settings annotation of every Zone object (zone-notes.ts). */
  settings: string;
  /** Suspect, phi and flap damping (docs/node-lifecycle.md#suspect); undefined without `config.detection`. */
  detection: AdaptiveDetection | undefined;
  /** Peer witnesses weighed before a conviction (docs/witnesses.md); undefined when switched off. */
  witnesses: WitnessGate | undefined;
}

/**
 * Builds the parts from the controller's deps. For a dry-run (docs/verdicts.md#dry-run) every part writes through a
 * client that refuses every write but verdict creates, reads nodes through the simulated writes, writes no event and
 * no Zone object, and counts under the dry-run metric names.
 */
export function buildParts(deps: NodeLifecycleControllerDeps): ControllerParts {
  const config = deps.config;
  const dryRun = deps.dryRun === true;
  const shadow = dryRun ? new ShadowNodes(deps.nodes) : undefined;
  // Every part below writes through this client: for a dry-run, one that cannot write.
  const client = shadow ? simulatingClient(refuseWrites(deps.client), shadow) : deps.client;
  const consistency = config.leaseCircuitBreaker ? new ConsistencyStore({ leases: deps.leases }) : noopConsistencyStore;
  const queues = new ZoneQueues(config, deps.clock);
  const zones = new ZoneBook(config, queues);
  const writes = shadow ?? new OwnWrites(deps.nodes);
  const events = new EventRecorder({
    client,
    clock: deps.clock,
    log: deps.log,
    ...(deps.identity === undefined ? {} : { host: deps.identity }),
    // The client's Verdict resource unless told otherwise: for a dry-run, through the client that refuses the rest.
    verdicts: deps.verdicts ?? client.verdicts,
    writeEvents: !dryRun,
  });
  // Built once per process by the controller manager (a leader's terms share them), or here for a lone controller.
  const metrics =
    deps.metrics instanceof NodeLifecycleMetrics ? deps.metrics : new NodeLifecycleMetrics(deps.metrics, { dryRun });
  const breaker = new BreakerStatus(metrics);
  const nodes = new KnownNodes();
  const verdicts = new VerdictRecorder({
    pacer: events,
    clock: deps.clock,
    timings: config,
    metrics,
    context: decisionContext({
      nodes,
      zones: () => zones,
      queues: () => queues,
      breaker: () => (config.leaseCircuitBreaker ? breaker.view(true, []) : undefined),
    }),
    dryRun,
  });
  const witnesses =
    config.witnesses && config.witnesses.quorum > 0
      ? new WitnessGate({
          clock: deps.clock,
          config: config.witnesses,
          gracePeriodMs: config.nodeMonitorGracePeriodMs,
          health: (name) => nodes.get(name)?.health,
          events,
          verdicts,
        })
      : undefined;
  return {
    consistency,
    evalDeps: { client, leases: deps.leases, clock: deps.clock, config, consistency, ...(witnesses && { witnesses }) },
    queues,
    zones,
    writes,
    events,
    metrics,
    taints: new TaintReconciler({
      client,
      writes,
      clock: deps.clock,
      log: deps.log,
      queues,
      events,
      metrics,
      verdicts,
      ...(witnesses && { witnesses }),
    }),
    zoneObjects: dryRun ? undefined : new ZoneObjectSync({ client, log: deps.log }),
    pause: new PauseDetector(config.nodeMonitorPeriodMs, config.nodeMonitorGracePeriodMs),
    slicer: deps.slicer ?? new PassSlicer(eventLoopSlices(deps.clock)),
    nodes,
    leaseWarnings: new LeaseWarnings(events, deps.log, config),
    breaker,
    verdicts,
    settings: settingsNote(config),
    detection: config.detection
      ? new AdaptiveDetection({
          client,
          writes,
          clock: deps.clock,
          log: deps.log,
          events,
          verdicts,
          metrics,
          nodes,
          config,
          detection: config.detection,
        })
      : undefined,
    witnesses,
  };
}
