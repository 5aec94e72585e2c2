import { TAINT_UNSCHEDULABLE, type Taint } from '../../core/node.js';
import { toleratesTaint, type Pod, type Toleration } from '../../core/pod.js';
import { controllerOf } from '../pod-index.js';
import type { NodeInfo } from './node-info.js';

/**
 * The scheduler's filters (kube-scheduler's Filter plugins that apply to shepherd's pods), as pure functions over a
 * pod's requirements and a NodeInfo. A node fails on the first filter it does not pass, in kube-scheduler's plugin
 * order, and the reason is kube-scheduler's text, so FailedScheduling reads as it does upstream
 * (docs/workloads.md#filters).
 */

/** NodeUnschedulable's ErrReasonUnschedulable. */
export const REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
/** The retired CheckNodeCondition predicate's ErrNodeNotReady (upstream now relies on the not-ready taints alone). */
export const REASON_NOT_READY = 'node(s) were not ready';
/** NodeAffinity's ErrReasonPod. */
export const REASON_SELECTOR = "node(s) didn't match Pod's node affinity/selector";
/** NodeResourcesFit's reason when the node's pod count is at `allocatable.pods`. */
export const REASON_TOO_MANY_PODS = 'Too many pods';

/** TaintToleration's reason: the first NoSchedule/NoExecute taint the pod does not tolerate. */
export function untoleratedTaintReason(key: string, value: string | undefined): string {
  return `node(s) had untolerated taint {${key}: ${value ?? ''}}`;
}

/** What filtering and scoring need from a pod, computed once per scheduling attempt. */
export interface PodRequirements {
  tolerations: readonly Toleration[];
  selector: ReadonlyArray<readonly [string, string]>;
  /** Tolerates `node.kubernetes.io/unschedulable:NoSchedule`, which lets it onto cordoned nodes (as upstream). */
  toleratesUnschedulable: boolean;
  /** The controller owner's uid (a Deployment), whose pods are spread; undefined for a pod without one. */
  owner: string | undefined;
}

export function requirementsOf(pod: Pod): PodRequirements {
  const tolerations = pod.spec.tolerations ?? [];
  const unschedulable = { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' as const };
  return {
    tolerations,
    selector: Object.entries(pod.spec.nodeSelector ?? {}),
    toleratesUnschedulable: tolerations.some((t) => toleratesTaint(t, unschedulable)),
    owner: controllerOf(pod)?.uid,
  };
}

/** Undefined when the pod fits the node; otherwise why not, in kube-scheduler's words. */
export function filterNode(req: PodRequirements, info: NodeInfo): string | undefined {
  const node = info.node;
  if (node.spec.unschedulable === true && !req.toleratesUnschedulable) return REASON_UNSCHEDULABLE;
  const taints = node.spec.taints;
  if (taints !== undefined) {
    for (const taint of taints) {
      if (taint.effect === 'PreferNoSchedule') continue;
      if (!tolerated(req.tolerations, taint)) return untoleratedTaintReason(taint.key, taint.value);
    }
  }
  if (!info.ready) return REASON_NOT_READY;
  if (req.selector.length > 0) {
    const labels = node.metadata.labels;
    for (const [k, v] of req.selector) if (labels?.[k] !== v) return REASON_SELECTOR;
  }
  if (info.usage.pods >= info.maxPods) return REASON_TOO_MANY_PODS;
  return undefined;
}

/** How many PreferNoSchedule taints of the node the pod does not tolerate (TaintToleration's score). */
export function untoleratedPreferNoSchedule(req: PodRequirements, info: NodeInfo): number {
  if (!info.preferNoSchedule) return 0;
  let n = 0;
  for (const taint of info.node.spec.taints ?? []) {
    if (taint.effect === 'PreferNoSchedule' && !tolerated(req.tolerations, taint)) n++;
  }
  return n;
}

/** Any toleration tolerates the taint (a loop, not a closure: this runs for every node of every search). */
function tolerated(tolerations: readonly Toleration[], taint: Taint): boolean {
  for (const t of tolerations) if (toleratesTaint(t, taint)) return true;
  return false;
}
