import type { ApiClient } from '../../client/api-client.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { Node } from '../../core/node.js';
import {
  detectionTimings,
  detectorEvidence,
  newDetection,
  resetDetection,
  updateDetection,
  type DetectionConfig,
  type DetectionTimings,
  type NodeDetection,
} from './detector.js';
import type { EventRecorder } from './events.js';
import { FLAPPING_NO_SCHEDULE, FlapDamper, type FlapAction } from './flap-damper.js';
import { mapLimit } from './map-limit.js';
import type { NodeLifecycleMetrics } from './metrics.js';
import type { KnownNodes } from './known-nodes.js';
import { adoptWrittenCopy, type NodeRecord } from './node-record.js';
import type { NodeOverlay } from './own-writes.js';
import { walkInSlices, type PassSlicer } from './pass-slicer.js';
import { isSuspect, suspectChange, withSuspect } from './suspect.js';
import { hasTaint, swapTaints, taintName, writeTaints } from './taints.js';
import { formatSeconds } from './verdict-evidence.js';
import type { VerdictRecorder } from './verdict-recorder.js';

export interface AdaptiveDetectionDeps {
  client: ApiClient;
  writes: NodeOverlay;
  clock: Clock;
  log: Logger;
  events: EventRecorder;
  verdicts: VerdictRecorder;
  metrics: NodeLifecycleMetrics;
  nodes: KnownNodes;
  config: { nodeMonitorPeriodMs: number; nodeMonitorGracePeriodMs: number; nodeWorkers: number };
  detection: DetectionConfig;
}

/** What the node's copy says, memoised per node object (a steady node costs one identity comparison a pass). */
function seen(det: NodeDetection, node: Node): void {
  if (det.seenNode === node) return;
  det.seenNode = node;
  det.seenSuspect = isSuspect(node);
  det.seenFlapping = hasTaint(node.spec.taints, FLAPPING_NO_SCHEDULE);
}

/**
 * Suspect writes made (and their verdicts handed to the pacer) per chunk of a pass
 * (docs/node-lifecycle.md#suspect-writes-in-chunks).
 */
export const SUSPECT_CHUNK = 512;

/** One Suspect write a pass decided: what its condition and verdict are built from, at write time. */
interface SuspectWork {
  rec: NodeRecord;
  /** The copy judged; dropped once the write is sent (the next pass reads the cache's again). */
  node: Node | undefined;
  /** The resourceVersion our write was answered with; undefined until it went through. */
  writtenRv?: string;
  det: NodeDetection;
  want: boolean;
  silentMs: number;
  /** `det.suspectAfterMs` and whether phi decided, as `learn` saw them. */
  afterMs: number;
  phi: boolean;
}

/** The writes one pass decided, made after its taints (`apply`). */
interface Work {
  suspect: SuspectWork[];
  flaps: Array<{ rec: NodeRecord; node: Node; action: Exclude<FlapAction, undefined> }>;
}

/**
 * Suspect, the phi detector's learning and flap damping, run once per pass that goes through
 * (docs/node-lifecycle.md#suspect, #phi-detector, #flap-damping). `learn` only decides, before the pass's taint
 * plans; `apply` writes after the pass's taints.
 */
export class AdaptiveDetection {
  readonly #deps: AdaptiveDetectionDeps;
  readonly #timings: DetectionTimings;
  readonly #damper: FlapDamper;

  constructor(deps: AdaptiveDetectionDeps) {
    this.#deps = deps;
    this.#timings = detectionTimings(
      deps.detection,
      deps.config.nodeMonitorPeriodMs,
      deps.config.nodeMonitorGracePeriodMs,
    );
    this.#damper = new FlapDamper(deps.detection.flapThreshold, deps.detection.flapWindowMs);
  }

  get config(): DetectionConfig {
    return this.#deps.detection;
  }

  /** A controller pause, or the end of master disruption: every node's heartbeat history is forgotten. */
  reset(now: number): void {
    for (const rec of this.#deps.nodes.values()) {
      const det = rec.health?.detection;
      if (det) resetDetection(det, rec.health?.probeTimestamp ?? now, this.#timings);
    }
  }

  /** The node came back Ready from False or Unknown (the flap damper counts it). */
  returnedReady(rec: NodeRecord, now: number): void {
    this.#damper.returned(rec.name, now);
  }

  /**
   * Learns from the pass's committed records and decides the Suspect and flapping writes. It steps aside
   * between slices: `nodes` must be the pass's own snapshot.
   */
  async learn(nodes: readonly Node[], recs: readonly NodeRecord[], now: number, slicer: PassSlicer): Promise<Work> {
    const work: Work = { suspect: [], flaps: [] };
    const suspectByZone = new Map<string, number>();
    await walkInSlices(nodes.length, slicer, (from) => {
      for (let i = from; i < nodes.length; i++) {
        if (slicer.due(i)) return i;
        this.#learnOne(nodes[i] as Node, recs[i] as NodeRecord, now, work, suspectByZone);
      }
      return nodes.length;
    });
    this.#deps.metrics.setSuspect(suspectByZone);
    this.#deps.metrics.flappingNodes.set(this.#damper.flappingCount());
    return work;
  }

  /** `learn` for one node (a method of its own, so the sliced walk stays a small loop). */
  #learnOne(node: Node, rec: NodeRecord, now: number, work: Work, suspectByZone: Map<string, number>): void {
    const health = rec.health;
    if (health === undefined || rec.passSkipped) return;
    let det = health.detection;
    if (det === undefined) det = health.detection = newDetection(health.probeTimestamp);
    updateDetection(det, health.probeTimestamp, health.lease?.spec.leaseDurationSeconds, this.#timings);
    seen(det, node);
    const silentMs = now - health.probeTimestamp;
    const want = det.suspectAfterMs !== undefined && silentMs > det.suspectAfterMs;
    if (rec.counted) suspectByZone.set(rec.zone, (suspectByZone.get(rec.zone) ?? 0) + (want ? 1 : 0));
    // A restarted controller gives a fresh grace, which proves nothing: Suspect goes only at an observed renewal.
    // Only what the write needs: its message is built when it is made (a cold start decides 100k of them).
    if (want !== det.seenSuspect && (want || det.renewed))
      work.suspect.push({
        rec,
        node,
        det,
        want,
        silentMs,
        afterMs: det.suspectAfterMs ?? 0,
        phi: det.phi !== undefined,
      });
    if (det.seenFlapping && !this.#damper.watching(rec.name)) this.#damper.adopt(rec.name, now);
    if (!this.#damper.watching(rec.name)) return;
    const action = this.#damper.action(rec.name, det.seenFlapping, rec.passStatus === 'True', now);
    if (action !== undefined) work.flaps.push({ rec, node, action });
  }

  /**
   * Makes the writes `learn` decided, drafting a verdict for each that went through. Suspect writes go in chunks of
   * SUSPECT_CHUNK (docs/node-lifecycle.md#suspect-writes-in-chunks): after each, its verdicts go to the pacer, and our
   * copies of the chunk before, written and judged, are dropped once the cache has what we wrote, so a pass that
   * doubts every node of a cold start holds one chunk of each, not 100k. No chunk starts once the Suspect writes have
   * taken one monitor period: the passes and taints behind them wait no longer than that.
   */
  async apply(work: Work, stopped: () => boolean = () => false): Promise<void> {
    const { clock, config, verdicts, writes, metrics, log } = this.#deps;
    const budgetEnds = clock.monotonic() + config.nodeMonitorPeriodMs;
    let previous: SuspectWork[] = [];
    let from = 0;
    // A stopping controller starts no more writes: a cold start's pass would otherwise hold its shutdown for every
    // node (BENCHMARKS.md §29). Unwritten changes are decided again by the next pass.
    for (; from < work.suspect.length && !stopped(); from += SUSPECT_CHUNK) {
      // At least one chunk a pass, so a slow store still makes progress.
      if (from > 0 && clock.monotonic() >= budgetEnds) break;
      const chunk = work.suspect.slice(from, from + SUSPECT_CHUNK);
      await mapLimit(chunk, config.nodeWorkers, (w) => this.#writeSuspect(w), stopped);
      verdicts.resolve();
      writes.prune(previous.map((w) => w.rec.name));
      this.#adopt(previous);
      previous = chunk;
    }
    const deferred = stopped() ? 0 : Math.max(0, work.suspect.length - from);
    if (deferred > 0) {
      metrics.suspectDeferred.inc(deferred);
      log.info(
        { decided: work.suspect.length, deferred },
        `Suspect writes took one monitor period: ${deferred} of ${work.suspect.length} Suspect changes are left to the next pass`,
      );
    }
    await mapLimit(work.flaps, config.nodeWorkers, (w) => this.#writeFlapping(w.rec, w.node, w.action), stopped);
  }

  /** The records of written nodes let go of the copies they judged once the cache holds what was written. */
  #adopt(written: readonly SuspectWork[]): void {
    for (const w of written) {
      if (w.writtenRv === undefined) continue;
      const now = this.#deps.writes.get(w.rec.name);
      if (now !== undefined && now.metadata.resourceVersion === w.writtenRv) adoptWrittenCopy(w.rec, now);
    }
  }

  forget(name: string): void {
    this.#damper.forget(name);
  }

  async #writeSuspect(w: SuspectWork): Promise<void> {
    const { client, clock, writes, log, verdicts } = this.#deps;
    const { rec, node, det } = w;
    if (node === undefined) return;
    w.node = undefined;
    const change = suspectChange(rec.name, w.want, w.silentMs, w.afterMs, w.phi);
    let written: Node;
    try {
      written = await client.nodes.updateStatus({
        ...node,
        status: { ...node.status, conditions: withSuspect(node.status.conditions, change, clock.now()) },
      });
    } catch (err) {
      // A conflict or an outage: the next pass decides again from a fresher copy.
      log.debug({ err, node: rec.name }, `could not set Suspect=${change.suspect} on node ${rec.name}`);
      return;
    }
    writes.remember(written);
    w.writtenRv = written.metadata.resourceVersion;
    verdicts.draft({
      action: change.suspect ? 'Suspect' : 'Unsuspect',
      reason: change.reason,
      node: rec.name,
      zone: rec.zone,
      message: change.message,
      ...(det.suspectAfterMs === undefined ? {} : { graceMs: det.suspectAfterMs }),
      detector: detectorEvidence(det, w.silentMs, det.phi ? this.#deps.detection : undefined),
      ...(change.suspect ? { next: this.#suspectNext(det) } : {}),
    });
  }

  #suspectNext(det: NodeDetection): string {
    const grace = det.expiryGraceMs ?? this.#deps.config.nodeMonitorGracePeriodMs;
    return `nothing while it is Suspect but new pods prefer other nodes; marked Unknown after ${formatSeconds(grace)} of silence${det.phi ? ' (the phi detector)' : ''}, Suspect=False at its next renewal`;
  }

  async #writeFlapping(rec: NodeRecord, node: Node, action: 'taint' | 'untaint'): Promise<void> {
    const { client, clock, log, writes, events, verdicts, detection } = this.#deps;
    const taint = FLAPPING_NO_SCHEDULE;
    const res = await writeTaints(client, node, (taints) =>
      action === 'taint' ? swapTaints(taints, [taint], [], clock.now()) : swapTaints(taints, [], [taint], clock.now()),
    );
    if (!res.ok) {
      log.warn({ err: res.error, node: rec.name }, `could not ${action} node ${rec.name} ${taintName(taint)}`);
      return;
    }
    if (res.node === undefined) return;
    writes.remember(res.node);
    const now = clock.monotonic();
    const transitions = this.#damper.transitions(rec.name, now);
    const window = formatSeconds(detection.flapWindowMs);
    const flapping = { transitions, windowSeconds: detection.flapWindowMs / 1000 };
    if (action === 'taint') {
      const message = `Node ${rec.name} came back Ready ${transitions} times within ${window} (more than --node-flap-threshold ${detection.flapThreshold}): tainted ${taintName(taint)}, no new pods; nothing is evicted for flapping`;
      events.emit({ kind: 'Node', name: rec.name, uid: rec.uid }, 'Warning', 'NodeFlapping', message);
      verdicts.draft({
        action: 'Flapping',
        reason: 'ReadyFlapping',
        node: rec.name,
        zone: rec.zone,
        message,
        flapping,
        next: `lift ${taintName(taint)} once the node has stayed Ready for ${window}`,
      });
    } else {
      verdicts.draft({
        action: 'Unflapping',
        reason: 'StayedReady',
        node: rec.name,
        zone: rec.zone,
        message: `Node ${rec.name} stayed Ready for ${window}: ${taintName(taint)} lifted`,
        flapping,
      });
    }
  }
}
