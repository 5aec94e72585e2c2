import { parseTime } from '../../core/clock.js';
import { POD_TEMPLATE_HASH_LABEL } from '../../core/deployment.js';
import { isPodReady, isTerminated, isTerminating, type Pod } from '../../core/pod.js';

/**
 * Which of a Deployment's pods count, and which go first (Kubernetes' FilterActivePods, IsPodAvailable and
 * ActivePods ordering, docs/workloads.md#scale-down-order).
 */

/** Neither terminating nor finished: the pod counts as a replica (Kubernetes' FilterActivePods). */
export function isActive(pod: Pod): boolean {
  return !isTerminating(pod) && !isTerminated(pod);
}

/** When the Ready condition last became True, in wall ms; undefined when the pod is not ready. */
export function readySince(pod: Pod): number | undefined {
  const c = pod.status.conditions?.find((x) => x.type === 'Ready' && x.status === 'True');
  if (c === undefined) return undefined;
  const t = c.lastTransitionTime === undefined ? NaN : parseTime(c.lastTransitionTime);
  return Number.isNaN(t) ? 0 : t;
}

/** Ready for more than minReadySeconds (Kubernetes' IsPodAvailable: strictly before now). */
export function isAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const since = readySince(pod);
  if (since === undefined) return false;
  return minReadySeconds <= 0 || since + minReadySeconds * 1000 < now;
}

export function hashOf(pod: Pod): string {
  return pod.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] ?? '';
}

/** How much the controller trusts a pod's node: a node that is gone, not Ready or Suspect is doubtful. */
export type NodeTrust = (nodeName: string) => 'trusted' | 'doubtful';

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * The order in which pods are deleted on scale-down, first to go first (Kubernetes' ActivePods Less, with one
 * step of shepherd's): unscheduled before scheduled; Pending before Running; not ready before ready; on a doubtful
 * node (gone, not Ready, or Suspect) before on a trusted one; ready for less time before longer; more restarts
 * before fewer; newer before older; then by name, so the order is total.
 */
export function compareForScaleDown(a: Pod, b: Pod, trust: NodeTrust): number {
  const aNode = a.spec.nodeName ?? '';
  const bNode = b.spec.nodeName ?? '';
  if ((aNode === '') !== (bNode === '')) return aNode === '' ? -1 : 1;
  const phase = (PHASE_RANK[a.status.phase] ?? 2) - (PHASE_RANK[b.status.phase] ?? 2);
  if (phase !== 0) return phase;
  const aReady = isPodReady(a);
  if (aReady !== isPodReady(b)) return aReady ? 1 : -1;
  if (aNode !== '' && bNode !== '') {
    const aDoubt = trust(aNode) === 'doubtful';
    if (aDoubt !== (trust(bNode) === 'doubtful')) return aDoubt ? -1 : 1;
  }
  if (aReady) {
    const since = (readySince(b) ?? 0) - (readySince(a) ?? 0);
    if (since !== 0) return since;
  }
  const restarts = restartsOf(b) - restartsOf(a);
  if (restarts !== 0) return restarts;
  const created = parseTime(b.metadata.creationTimestamp) - parseTime(a.metadata.creationTimestamp);
  if (created !== 0) return created;
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

function restartsOf(pod: Pod): number {
  let n = 0;
  for (const c of pod.status.containerStatuses ?? []) n += c.restartCount;
  return n;
}
