import type { ApiClient } from '../../client/api-client.js';
import { formatTime } from '../../core/clock.js';
import { isReason } from '../../core/errors.js';
import {
  TAINT_NOT_READY,
  TAINT_UNREACHABLE,
  TAINT_UNSCHEDULABLE,
  type Node,
  type NodeCondition,
  type Taint,
} from '../../core/node.js';

export const UNREACHABLE_NO_EXECUTE: Taint = Object.freeze({ key: TAINT_UNREACHABLE, effect: 'NoExecute' });
export const NOT_READY_NO_EXECUTE: Taint = Object.freeze({ key: TAINT_NOT_READY, effect: 'NoExecute' });

/**
 * Upstream `nodeConditionToTaintKeyStatusMap`: a NoSchedule taint per (condition, status)
 * (docs/node-lifecycle.md#taints).
 */
const CONDITION_TAINTS: ReadonlyArray<{ type: string; status: NodeCondition['status']; key: string }> = [
  { type: 'Ready', status: 'False', key: TAINT_NOT_READY },
  { type: 'Ready', status: 'Unknown', key: TAINT_UNREACHABLE },
  { type: 'MemoryPressure', status: 'True', key: 'node.kubernetes.io/memory-pressure' },
  { type: 'DiskPressure', status: 'True', key: 'node.kubernetes.io/disk-pressure' },
  { type: 'PIDPressure', status: 'True', key: 'node.kubernetes.io/pid-pressure' },
  { type: 'NetworkUnavailable', status: 'True', key: 'node.kubernetes.io/network-unavailable' },
];
const OWNED_NO_SCHEDULE_KEYS = new Set([...CONDITION_TAINTS.map((t) => t.key), TAINT_UNSCHEDULABLE]);

/** A taint this controller owns (docs/node-lifecycle.md#taints): both NoExecute taints and the NoSchedule mirrors. */
export function isControllerTaint(t: Pick<Taint, 'key' | 'effect'>): boolean {
  if (t.effect === 'NoSchedule') return OWNED_NO_SCHEDULE_KEYS.has(t.key);
  return t.effect === 'NoExecute' && (t.key === TAINT_UNREACHABLE || t.key === TAINT_NOT_READY);
}

/** `key:effect`, as messages and verdicts name a taint. */
export const taintName = (t: Pick<Taint, 'key' | 'effect'>): string => `${t.key}:${t.effect}`;

/** Taint identity is (key, effect), as `taintutils.TaintExists`. */
export function hasTaint(taints: readonly Taint[] | undefined, t: Pick<Taint, 'key' | 'effect'>): boolean {
  return (taints ?? []).some((x) => x.key === t.key && x.effect === t.effect);
}

/** The NoSchedule taints the node's conditions and spec.unschedulable call for (`doNoScheduleTaintingPass`). */
export function desiredNoScheduleKeys(
  conditions: readonly NodeCondition[] | undefined,
  unschedulable: boolean | undefined,
): string[] {
  const keys = new Set<string>();
  for (const c of conditions ?? []) {
    for (const m of CONDITION_TAINTS) if (m.type === c.type && m.status === c.status) keys.add(m.key);
  }
  if (unschedulable) keys.add(TAINT_UNSCHEDULABLE);
  return [...keys].sort();
}

/**
 * Brings the controller-owned NoSchedule taints in line with `keys`, keeping every other taint (and the
 * timeAdded of ones already present) untouched. New ones are stamped `timeAdded = now`.
 */
export function reconcileNoSchedule(taints: readonly Taint[], keys: readonly string[], nowWallMs: number): Taint[] {
  const want = new Set(keys);
  const out = taints.filter((t) => t.effect !== 'NoSchedule' || !OWNED_NO_SCHEDULE_KEYS.has(t.key) || want.has(t.key));
  for (const key of keys) {
    if (!hasTaint(out, { key, effect: 'NoSchedule' }))
      out.push({ key, effect: 'NoSchedule', timeAdded: formatTime(nowWallMs) });
  }
  return out;
}

/** `SwapNodeControllerTaint` on a list: adds `add` (timeAdded = now) unless present, drops every `remove`. */
export function swapTaints(
  taints: readonly Taint[],
  add: readonly Taint[],
  remove: readonly Taint[],
  nowWallMs: number,
): Taint[] {
  const out = taints.filter((t) => !remove.some((r) => r.key === t.key && r.effect === t.effect));
  for (const a of add)
    if (!hasTaint(out, a)) out.push({ key: a.key, effect: a.effect, timeAdded: formatTime(nowWallMs) });
  return out;
}

export function sameTaints(a: readonly Taint[] | undefined, b: readonly Taint[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  return x.every((t, i) => {
    const u = y[i] as Taint;
    return t.key === u.key && t.effect === u.effect && t.value === u.value && t.timeAdded === u.timeAdded;
  });
}

/** The NoExecute taint that matches a Ready status (False → not-ready, Unknown → unreachable). */
export function noExecuteFor(status: NodeCondition['status']): { want: Taint; other: Taint } | undefined {
  if (status === 'False') return { want: NOT_READY_NO_EXECUTE, other: UNREACHABLE_NO_EXECUTE };
  if (status === 'Unknown') return { want: UNREACHABLE_NO_EXECUTE, other: NOT_READY_NO_EXECUTE };
  return undefined;
}

/** `UpdateTaintBackoff.Steps`. */
export const TAINT_UPDATE_STEPS = 5;

export type TaintWriteResult = { ok: true; node: Node | undefined } | { ok: false; error: unknown };

/**
 * `PatchNodeTaints` under `RetryOnConflict`: the first read is the caller's (cache) copy, later reads are live
 * GETs; each try recomputes the taints from the copy it read and PUTs with that resourceVersion, so a
 * concurrent writer is never overwritten. No API call when nothing changes. `node: undefined` = node gone.
 * Retries are immediate (upstream sleeps ~100 ms): a conflict means we already hold a newer copy.
 */
export async function writeTaints(
  client: ApiClient,
  first: Node,
  mutate: (taints: readonly Taint[], node: Node) => Taint[],
): Promise<TaintWriteResult> {
  let node: Node = first;
  let lastError: unknown;
  for (let step = 0; step < TAINT_UPDATE_STEPS; step++) {
    if (step > 0) {
      try {
        node = await client.nodes.get(first.metadata.name);
      } catch (err) {
        if (isReason(err, 'NotFound')) return { ok: true, node: undefined };
        return { ok: false, error: err };
      }
    }
    const current = node.spec.taints ?? [];
    const next = mutate(current, node);
    if (sameTaints(current, next)) return { ok: true, node };
    try {
      const written = await client.nodes.update({ ...node, spec: { ...node.spec, taints: next } });
      return { ok: true, node: written };
    } catch (err) {
      if (isReason(err, 'NotFound')) return { ok: true, node: undefined };
      if (!isReason(err, 'Conflict')) return { ok: false, error: err };
      lastError = err;
    }
  }
  return { ok: false, error: lastError };
}
