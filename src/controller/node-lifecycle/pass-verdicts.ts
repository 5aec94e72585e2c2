import type { Clock } from '../../core/clock.js';
import { readyCondition, type Node } from '../../core/node.js';
import type { VerdictEvidence } from '../../core/verdict.js';
import type { BreakerView } from './breaker-status.js';
import { ConsistencyError } from './consistency-store.js';
import type { ZoneBook } from './disruption.js';
import { detectorEvidence, type DetectionConfig } from './detector.js';
import type { KnownNodes } from './known-nodes.js';
import type { Judged, ShortCircuit } from './node-evaluator.js';
import { REASON_NEVER_UPDATED, type HealthTimings } from './node-health.js';
import type { NodeRecord } from './node-record.js';
import { markedMessage } from './pass-events.js';
import { hasTaint, noExecuteFor, NOT_READY_NO_EXECUTE, taintName, UNREACHABLE_NO_EXECUTE } from './taints.js';
import { formatSeconds, heldByBreakerNext, readyNext } from './verdict-evidence.js';
import type { DecisionContext, VerdictRecorder } from './verdict-recorder.js';
import type { ZoneQueues } from './zone-queues.js';

/**
 * MarkUnknown for every node this pass marked (docs/verdicts.md#actions). Drafted before the taint reconcile, so
 * the reconcile's queueing of the same node becomes part of this verdict (its position, ETA and `next`).
 */
export function draftMarks(
  verdicts: VerdictRecorder,
  written: ReadonlyMap<number, Judged>,
  recs: readonly NodeRecord[],
  clock: Clock,
  detection?: DetectionConfig,
): void {
  if (!verdicts.enabled) return;
  for (const [i, j] of written) {
    if (!j.marked) continue;
    const rec = recs[i] as NodeRecord;
    const m = j.current ? noExecuteFor(j.current.status) : undefined;
    const carries = m && hasTaint(j.node.spec.taints, m.want) ? taintName(m.want) : undefined;
    const swaps = m && !carries && hasTaint(j.node.spec.taints, m.other);
    verdicts.draft({
      action: 'MarkUnknown',
      reason: j.current?.reason === REASON_NEVER_UPDATED ? 'NeverReported' : 'HeartbeatTimeout',
      node: rec.name,
      zone: rec.zone,
      message: `${markedMessage(rec.name, j, clock)}: marked Unknown`,
      graceMs: j.gracePeriodMs,
      ...(j.liveLeaseRv ? { liveRv: j.liveLeaseRv } : {}),
      ...(carries ? { carries } : {}),
      ...(swaps && m
        ? { next: `swap ${taintName(m.other)} for ${taintName(m.want)} in this pass, at once (no token)` }
        : {}),
      detector: markDetector(j, clock, detection),
    });
  }
}

type DetectorEvidence = NonNullable<VerdictEvidence['detector']>;

/** The phi detector's evidence when it judged the node (docs/node-lifecycle.md#phi-detector), else the fixed one. */
function markDetector(j: Judged, clock: Clock, detection: DetectionConfig | undefined): true | DetectorEvidence {
  const det = j.health.detection;
  if (detection === undefined || det === undefined) return true;
  return detectorEvidence(det, clock.monotonic() - j.health.probeTimestamp, det.phi ? detection : undefined);
}

/** Ready: the node is Ready again after `before` (Unknown or False). */
export function draftReady(
  verdicts: VerdictRecorder,
  rec: NodeRecord,
  node: Node,
  before: string,
  timings: HealthTimings,
): void {
  if (!verdicts.enabled) return;
  const name = rec.name;
  const tainted =
    hasTaint(node.spec.taints, UNREACHABLE_NO_EXECUTE) || hasTaint(node.spec.taints, NOT_READY_NO_EXECUTE);
  verdicts.draft({
    action: 'Ready',
    reason: 'NodeReady',
    node: name,
    zone: rec.zone,
    message: `Node ${name} is Ready again (it was ${before}): a renewal or a Ready heartbeat was observed`,
    next: readyNext(timings.nodeMonitorGracePeriodMs, tainted),
  });
}

/** Why the breaker held a pass: the check that refused (docs/node-lifecycle.md#lease-circuit-breaker). */
export function holdReason(sc: ShortCircuit): string {
  if (sc.stale) return 'LeaseCacheStale';
  return sc.error instanceof ConsistencyError ? 'LeaseCacheBehind' : 'LeaseCheckFailed';
}

/**
 * Hold for every node the abandoned pass would have marked (`marks`), once per hold: `held` remembers them until a
 * pass goes through, so a breaker that holds for many passes writes one verdict per node, not one per pass.
 */
export function draftHolds(
  verdicts: VerdictRecorder,
  held: Set<string>,
  marks: readonly number[],
  recs: readonly NodeRecord[],
  nodes: readonly Node[],
  sc: ShortCircuit,
  timings: HealthTimings,
  now: number,
): void {
  if (!verdicts.enabled) return;
  const reason = holdReason(sc);
  const pendingRv = sc.error instanceof ConsistencyError ? sc.error.writtenRv : sc.stale?.liveRv;
  for (const i of marks) {
    const rec = recs[i] as NodeRecord;
    if (held.has(rec.name) || rec.health === undefined) continue;
    held.add(rec.name);
    const graceMs =
      readyCondition(nodes[i] as Node) === undefined
        ? timings.nodeStartupGracePeriodMs
        : timings.nodeMonitorGracePeriodMs;
    const silent = formatSeconds(now - rec.health.probeTimestamp);
    const own = sc.node === rec.name && sc.stale;
    verdicts.draft({
      action: 'Hold',
      reason,
      node: rec.name,
      zone: rec.zone,
      message: `Node ${rec.name} looks silent for ${silent} (grace ${formatSeconds(graceMs)}) but is not marked: the lease circuit breaker held the pass: ${sc.error.message}`,
      graceMs,
      ...(own ? { cachedRv: own.cachedRv, liveRv: own.liveRv } : {}),
      breaker: { open: true, reason: sc.error.message.slice(0, 1024) },
      next: heldByBreakerNext(pendingRv),
      detector: true,
    });
  }
}

/** What verdicts read of the controller's state when they are resolved (only for nodes something was decided on). */
export function decisionContext(parts: {
  nodes: KnownNodes;
  zones: () => ZoneBook;
  queues: () => ZoneQueues;
  /** Undefined when the breaker is switched off. */
  breaker: () => BreakerView | undefined;
}): DecisionContext {
  return {
    health: (name) => parts.nodes.get(name)?.health,
    zone: (zone) => {
      const c = parts.zones().count(zone);
      return {
        zone,
        state: parts.zones().state(zone) ?? 'Initial',
        nodes: c?.nodes ?? 0,
        notReady: c?.notReady ?? 0,
        rate: parts.queues().rate(zone),
      };
    },
    schedule: (zone) => parts.queues().schedule(zone),
    master: () => parts.zones().inMasterDisruption(),
    breaker: () => {
      const v = parts.breaker();
      if (v === undefined) return undefined;
      return v.holding && v.lastError !== undefined ? { open: true, reason: v.lastError } : { open: v.holding };
    },
  };
}
