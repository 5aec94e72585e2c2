import { formatTime } from '../../core/clock.js';
import type { Lease } from '../../core/lease.js';
import { readyCondition, type Node, type NodeCondition, type NodeStatus } from '../../core/node.js';
import type { NodeDetection } from './detector.js';
import { SUSPECT_CONDITION } from './suspect.js';

/**
 * `nodeHealthData` (node_lifecycle_controller.go): what the controller remembers about a node between passes.
 * Times are on the controller's MONOTONIC clock (docs/node-lifecycle.md#d1-judge-liveness-on-our-own-clock): agent
 * timestamps are only compared for equality.
 */
export interface NodeHealth {
  /** When the controller last OBSERVED a heartbeat (changed Ready.lastHeartbeatTime or lease renewTime). */
  probeTimestamp: number;
  /** When the controller last saw Ready change (kept for parity and inspection; no decision reads it). */
  readyTransitionTimestamp: number;
  /** The last status seen or written. */
  status: NodeStatus;
  /**
   * The newest cached copy of the node's Lease: the circuit breaker compares its RV
   * (docs/node-lifecycle.md#d1-judge-liveness-on-our-own-clock).
   */
  lease: Lease | undefined;
  /** What the adaptive detection learnt of its heartbeats (detector.ts); absent unless it is configured. */
  detection?: NodeDetection;
}

/**
 * The silence allowed to a node with a Ready condition: the grace, or less when the phi detector judges it
 * (docs/node-lifecycle.md#phi-bounds; never more than the grace).
 */
export function monitorGraceOf(health: NodeHealth | undefined, timings: HealthTimings): number {
  return health?.detection?.expiryGraceMs ?? timings.nodeMonitorGracePeriodMs;
}

export interface HealthTimings {
  nodeMonitorGracePeriodMs: number;
  nodeStartupGracePeriodMs: number;
}

export interface Observation {
  health: NodeHealth;
  /** The Ready condition as observed (a synthetic Unknown one when the node has none, as upstream). */
  observed: NodeCondition;
  /** True when the node carries a real Ready condition. */
  hasReady: boolean;
  gracePeriodMs: number;
}

/** The condition types the controller fabricates as NeverUpdated when missing (upstream's list). */
export const MARKED_CONDITION_TYPES = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

export const REASON_UNKNOWN = 'NodeStatusUnknown';
export const REASON_NEVER_UPDATED = 'NodeStatusNeverUpdated';
export const MESSAGE_UNKNOWN = 'Node agent stopped posting node status.';
export const MESSAGE_NEVER_UPDATED = 'Node agent never posted node status.';

/**
 * Steps 1–3 of `tryUpdateNodeHealth` (docs/node-lifecycle.md#heartbeats):
 * - first sight (no record, e.g. after a restart): probe = now, whatever the node looks like
 *   (docs/node-lifecycle.md#d8-restarts-keep-noexecute-taints);
 * - a Ready condition whose lastHeartbeatTime differs from the recorded one (any inequality), or Ready
 *   appearing: probe = now;
 * - a cached Lease whose renewTime differs from the recorded lease's (any inequality, so an agent clock
 *   stepping back still counts: docs/node-lifecycle.md#d1-judge-liveness-on-our-own-clock): probe = now. The
 *   recorded lease is always replaced by the newest cached copy, so a label edit is recorded (for the breaker)
 *   but is not a renewal;
 * - a status heartbeat never drops the recorded lease (docs/node-lifecycle.md#d2-a-status-heartbeat-keeps-the-lease);
 * - no Ready condition: startup grace; a removed Ready condition is treated the same way, as upstream
 *   (docs/node-lifecycle.md#q1-removed-ready-uses-the-startup-grace).
 * Pure: returns a new record and never mutates `prev`.
 */
export function observeNode(
  prev: NodeHealth | undefined,
  node: Node,
  lease: Lease | undefined,
  now: number,
  timings: HealthTimings,
): Observation {
  const current = readyCondition(node);
  const observed: NodeCondition = current
    ? { ...current }
    : {
        type: 'Ready',
        status: 'Unknown',
        lastHeartbeatTime: node.metadata.creationTimestamp,
        lastTransitionTime: node.metadata.creationTimestamp,
      };
  const gracePeriodMs = current ? monitorGraceOf(prev, timings) : timings.nodeStartupGracePeriodMs;
  if (!prev) {
    const health = { probeTimestamp: now, readyTransitionTimestamp: now, status: node.status, lease };
    return { health, observed, hasReady: current !== undefined, gracePeriodMs };
  }
  const saved = current ? prev.status.conditions?.find((c) => c.type === 'Ready') : undefined;
  const health: NodeHealth = { ...prev, status: node.status, lease: lease ?? prev.lease };
  if (observedHeartbeat(saved, current, prev.lease, lease)) health.probeTimestamp = now;
  if (current && readyTransitioned(saved, current)) health.readyTransitionTimestamp = now;
  return { health, observed, hasReady: current !== undefined, gracePeriodMs };
}

/** Ready appeared, or was posted again (a new lastHeartbeatTime) with a new lastTransitionTime. */
function readyTransitioned(saved: NodeCondition | undefined, current: NodeCondition): boolean {
  if (saved === undefined) return true;
  return (
    saved.lastHeartbeatTime !== current.lastHeartbeatTime && saved.lastTransitionTime !== current.lastTransitionTime
  );
}

/**
 * The renewal rule (docs/node-lifecycle.md#d1-judge-liveness-on-our-own-clock), in one place for the full observation (`observeNode`) and the monitor pass's
 * fast path (`judgeStaged`): the controller observed a heartbeat when the Ready condition's lastHeartbeatTime
 * differs from the recorded one or Ready appeared (`saved` undefined), or when the cached Lease's renewTime
 * differs from the recorded lease's or the first lease appeared. Any inequality counts, so an agent clock
 * stepping back is still a heartbeat; agent timestamps are never compared for order. Allocates nothing.
 */
export function observedHeartbeat(
  saved: NodeCondition | undefined,
  current: NodeCondition | undefined,
  recordedLease: Lease | undefined,
  lease: Lease | undefined,
): boolean {
  if (current !== undefined && (saved === undefined || saved.lastHeartbeatTime !== current.lastHeartbeatTime))
    return true;
  return lease !== undefined && (recordedLease === undefined || recordedLease.spec.renewTime !== lease.spec.renewTime);
}

/** Step 4: expired only when strictly past the grace (`now > probe + grace`). */
export function isExpired(health: NodeHealth, gracePeriodMs: number, now: number): boolean {
  return now > health.probeTimestamp + gracePeriodMs;
}

/**
 * Step 6 (docs/node-lifecycle.md#d3-unknown-covers-every-condition): every condition the agent reported becomes
 * Unknown (NodeStatusUnknown, lastHeartbeatTime kept), and each of Ready/MemoryPressure/DiskPressure/PIDPressure
 * that is missing is added as NodeStatusNeverUpdated with lastHeartbeatTime = creationTimestamp. `changed` says
 * whether anything differs, which is when the controller writes.
 */
export function markUnknown(node: Node, nowWallMs: number): { conditions: NodeCondition[]; changed: boolean } {
  const at = formatTime(nowWallMs);
  let changed = false;
  const conditions = (node.status.conditions ?? []).map((c) => {
    // Suspect is the controller's own doubt, not something the agent reported (docs/node-lifecycle.md#suspect).
    if (c.status === 'Unknown' || c.type === SUSPECT_CONDITION) return c;
    changed = true;
    return {
      ...c,
      status: 'Unknown' as const,
      reason: REASON_UNKNOWN,
      message: MESSAGE_UNKNOWN,
      lastTransitionTime: at,
    };
  });
  for (const type of MARKED_CONDITION_TYPES) {
    if (conditions.some((c) => c.type === type)) continue;
    changed = true;
    conditions.push({
      type,
      status: 'Unknown',
      reason: REASON_NEVER_UPDATED,
      message: MESSAGE_NEVER_UPDATED,
      lastHeartbeatTime: node.metadata.creationTimestamp,
      lastTransitionTime: at,
    });
  }
  return { conditions, changed };
}

/** `markUnknown(node, t).changed` without building the conditions: would the Unknown mark write anything? */
export function wouldMarkChange(node: Node): boolean {
  const conditions = node.status.conditions ?? [];
  for (const c of conditions) if (c.status !== 'Unknown' && c.type !== SUSPECT_CONDITION) return true;
  for (const type of MARKED_CONDITION_TYPES) if (!conditions.some((c) => c.type === type)) return true;
  return false;
}

/**
 * docs/node-lifecycle.md#d13-upstream-defaults-and-safety-checks: an agent renewing every leaseDurationSeconds/4
 * (the agent's ratio) needs that interval plus one monitor period to be shorter than the grace, or it would look
 * dead between two renewals.
 */
export function leaseRenewIntervalTooLong(lease: Lease, monitorPeriodMs: number, gracePeriodMs: number): boolean {
  return (lease.spec.leaseDurationSeconds * 1000) / 4 + monitorPeriodMs >= gracePeriodMs;
}

/** `Node node-1 heartbeat timeout: no lease renewal or status heartbeat observed for 52s (grace 50s)`. */
export function heartbeatTimeoutMessage(name: string, silentForMs: number, gracePeriodMs: number): string {
  const secs = (ms: number): string => `${Math.floor(ms / 1000)}s`;
  return `Node ${name} heartbeat timeout: no lease renewal or status heartbeat observed for ${secs(silentForMs)} (grace ${secs(gracePeriodMs)})`;
}
