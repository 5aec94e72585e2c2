import { parseTime } from '../../core/clock.js';
import type { Node, Taint } from '../../core/node.js';
import { toleratesTaint, type Toleration } from '../../core/pod.js';

/**
 * When a pod on a node with NoExecute taints must go (docs/workloads.md#taint-based-eviction), as a pure function:
 * - `none`: the node has no NoExecute taint: nothing to do (a pending eviction is cancelled);
 * - `now`: some NoExecute taint is not tolerated at all: delete at once;
 * - `at`: every taint is tolerated, some only for `tolerationSeconds`: delete at the earliest
 *   `start(taint) + tolerationSeconds` over those taints (wall ms);
 * - `never`: every taint is tolerated without a limit: the pod stays.
 * For each taint the pod's first toleration that matches it counts (Kubernetes' GetMatchingTolerations); a
 * negative tolerationSeconds is 0. `start` is the taint's `timeAdded`, or when the controller first saw the taint
 * when it has none; upstream counts from when its own process saw the taint, which restarts every countdown after
 * a controller restart.
 */
export type EvictionTime = { kind: 'none' } | { kind: 'now' } | { kind: 'at'; at: number } | { kind: 'never' };

export function evictionTime(
  tolerations: readonly Toleration[] | undefined,
  taints: readonly Taint[],
  firstSeen: (taint: Taint) => number,
): EvictionTime {
  let at: number | undefined;
  let any = false;
  for (const taint of taints) {
    if (taint.effect !== 'NoExecute') continue;
    any = true;
    const toleration = (tolerations ?? []).find((t) => toleratesTaint(t, taint));
    if (toleration === undefined) return { kind: 'now' };
    if (toleration.tolerationSeconds === undefined) continue;
    const start = taint.timeAdded === undefined ? firstSeen(taint) : parseTime(taint.timeAdded);
    const due = start + Math.max(0, toleration.tolerationSeconds) * 1000;
    if (at === undefined || due < at) at = due;
  }
  if (!any) return { kind: 'none' };
  return at === undefined ? { kind: 'never' } : { kind: 'at', at };
}

/** The node's NoExecute taints (empty when none). */
export function noExecuteTaints(node: Node | undefined): Taint[] {
  return (node?.spec.taints ?? []).filter((t) => t.effect === 'NoExecute');
}

/** The identity the controller remembers a taint by when it has no timeAdded. */
export function taintId(taint: Taint): string {
  return `${taint.key}=${taint.value ?? ''}`;
}

/** Whether two nodes' NoExecute taints differ in anything eviction depends on. */
export function noExecuteChanged(before: Node | undefined, after: Node | undefined): boolean {
  const a = noExecuteTaints(before);
  const b = noExecuteTaints(after);
  if (a.length !== b.length) return true;
  return a.some((t, i) => {
    const u = b[i] as Taint;
    return t.key !== u.key || t.value !== u.value || t.timeAdded !== u.timeAdded;
  });
}
