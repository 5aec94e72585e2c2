import { formatTime } from '../../core/clock.js';
import type { Node, NodeCondition } from '../../core/node.js';
import { formatSeconds } from './verdict-evidence.js';

/**
 * The node condition the controller sets while it doubts a node that has missed renewals but is not yet past its
 * grace (docs/node-lifecycle.md#suspect). It changes nothing else: no taint, no eviction, zone maths unchanged; the
 * scheduler prefers other nodes (src/controller/scheduler/scores.ts) and sheepctl shows `Ready,Suspect`.
 */
export const SUSPECT_CONDITION = 'Suspect';

export const REASON_MISSED_RENEWALS = 'MissedRenewals';
export const REASON_PHI_SUSPECT = 'PhiAboveSuspectThreshold';
export const REASON_RENEWING = 'RenewalsObserved';

export function isSuspect(node: Node): boolean {
  return node.status.conditions?.some((c) => c.type === SUSPECT_CONDITION && c.status === 'True') === true;
}

/** What a Suspect condition says: why the node is doubted, or that it renews again. */
export interface SuspectChange {
  suspect: boolean;
  reason: string;
  message: string;
}

/** The change of a node found silent for `silentMs` where `afterMs` was allowed (`phi`: the phi rule decided). */
export function suspectChange(
  name: string,
  suspect: boolean,
  silentMs: number,
  afterMs: number,
  phi: boolean,
): SuspectChange {
  if (!suspect)
    return {
      suspect,
      reason: REASON_RENEWING,
      message: `Node ${name} renews again: a renewal or a Ready heartbeat was observed`,
    };
  return {
    suspect,
    reason: phi ? REASON_PHI_SUSPECT : REASON_MISSED_RENEWALS,
    message: `Node ${name} missed its expected renewals: silent for ${formatSeconds(silentMs)} (suspect after ${formatSeconds(afterMs)}${phi ? ', the phi detector' : ''}); it is not marked or tainted, new pods prefer other nodes`,
  };
}

/**
 * The node's conditions with Suspect set (True or False, lastTransitionTime now); every other condition kept. A
 * node that has no Suspect condition and is not suspect needs none: the caller never asks for that.
 */
export function withSuspect(
  conditions: readonly NodeCondition[] | undefined,
  change: SuspectChange,
  nowWallMs: number,
): NodeCondition[] {
  const at = formatTime(nowWallMs);
  const next: NodeCondition = {
    type: SUSPECT_CONDITION,
    status: change.suspect ? 'True' : 'False',
    reason: change.reason,
    message: change.message,
    lastHeartbeatTime: at,
    lastTransitionTime: at,
  };
  const rest = (conditions ?? []).filter((c) => c.type !== SUSPECT_CONDITION);
  return [...rest, next];
}
