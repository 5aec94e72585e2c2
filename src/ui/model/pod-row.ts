import type { Deployment } from '../../core/deployment.js';
import type { Pod, PodPhase } from '../../core/pod.js';

/** What the Pods table shows of one Pod, as `kubectl get pods` words it. */
export interface PodRow {
  /** `namespace/name`, the store's key. */
  key: string;
  name: string;
  namespace: string;
  phase: PodPhase;
  /** STATUS: the phase, or what holds the pod (a container's waiting or terminated reason, Terminating). */
  status: string;
  tone: 'ok' | 'warn' | 'bad' | 'idle';
  /** READY: `ready/total` containers. */
  ready: string;
  restarts: number;
  /** NODE, or undefined while the pod is not bound. */
  node: string | undefined;
  created: string;
  /** The name of the Deployment that owns it, if one does. */
  owner: string | undefined;
  ownerUid: string | undefined;
}

function terminatedText(t: { reason?: string; signal?: number; exitCode: number }): string {
  if (t.reason !== undefined && t.reason !== '') return t.reason;
  return t.signal !== undefined && t.signal !== 0 ? `Signal:${t.signal}` : `ExitCode:${t.exitCode}`;
}

/**
 * kubectl's STATUS column (printPod in kubernetes/pkg/printers/internalversion/printers.go, reduced to the fields
 * shepherd has): the pod's reason or phase, overridden by a container that waits or stopped with a reason while the
 * pod is not Running and ready, and `Terminating` once deletion began.
 */
export function podStatusText(pod: Pod): string {
  let reason = pod.status.reason !== undefined && pod.status.reason !== '' ? pod.status.reason : pod.status.phase;
  let running = false;
  for (const c of pod.status.containerStatuses ?? []) {
    const waiting = c.state.waiting?.reason;
    const terminated = c.state.terminated;
    if (waiting !== undefined && waiting !== '') reason = waiting;
    else if (terminated !== undefined) reason = terminatedText(terminated);
    else if (c.state.running !== undefined && c.ready) running = true;
  }
  if (reason === 'Completed' && running) reason = 'Running';
  if (pod.metadata.deletionTimestamp !== undefined) return pod.status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

function toneOf(status: string, phase: PodPhase): PodRow['tone'] {
  if (status === 'Running') return 'ok';
  if (status === 'Completed' || phase === 'Succeeded' || status === 'Terminating') return 'idle';
  if (phase === 'Failed' || status === 'Unknown' || /Err|BackOff|Error|Signal|ExitCode/.test(status)) return 'bad';
  return 'warn';
}

function summarise(pod: Pod): PodRow {
  const statuses = pod.status.containerStatuses ?? [];
  const owner = pod.metadata.ownerReferences?.find((o) => o.kind === 'Deployment');
  const status = podStatusText(pod);
  return {
    key: `${pod.metadata.namespace}/${pod.metadata.name}`,
    name: pod.metadata.name,
    namespace: pod.metadata.namespace,
    phase: pod.status.phase,
    status,
    tone: toneOf(status, pod.status.phase),
    ready: `${statuses.filter((c) => c.ready).length}/${pod.spec.containers.length}`,
    restarts: statuses.reduce((n, c) => n + c.restartCount, 0),
    node: pod.spec.nodeName,
    created: pod.metadata.creationTimestamp,
    owner: owner?.name,
    ownerUid: owner?.uid,
  };
}

const rows = new WeakMap<Pod, PodRow>();

/** The row of a Pod object; watch events replace objects, so a cached row is never stale. */
export function podRowOf(pod: Pod): PodRow {
  let row = rows.get(pod);
  if (row === undefined) {
    row = summarise(pod);
    rows.set(pod, row);
  }
  return row;
}

export interface PodQuery {
  /** Substring of the name; case-insensitive. */
  text: string;
  /** A namespace, a node name or a phase; `all` for any. */
  namespace: string;
  node: string;
  phase: string;
}

export const ALL_PODS: PodQuery = { text: '', namespace: 'all', node: 'all', phase: 'all' };

/** `namespace/name` keys in the Pods table's order: by namespace, then name. */
export function sortKeys(keys: Iterable<string>): string[] {
  return [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The rows the Pods table shows, in the order given: pods of a store, by `sortKeys` of its keys. */
export function selectPods(pods: Iterable<Pod | undefined>, q: PodQuery): PodRow[] {
  const needle = q.text.trim().toLowerCase();
  const out: PodRow[] = [];
  for (const pod of pods) {
    if (pod === undefined) continue;
    const r = podRowOf(pod);
    if (q.namespace !== 'all' && r.namespace !== q.namespace) continue;
    if (q.node !== 'all' && (r.node ?? '') !== q.node) continue;
    if (q.phase !== 'all' && r.phase !== q.phase) continue;
    if (needle !== '' && !r.name.toLowerCase().includes(needle)) continue;
    out.push(r);
  }
  return out;
}

/** The pods a Deployment owns (its uid in their owner references), as the deployment controller counts them. */
export function podsOfDeployment(pods: Iterable<Pod>, d: Deployment): PodRow[] {
  const out: PodRow[] = [];
  for (const pod of pods) {
    const r = podRowOf(pod);
    if (r.namespace === d.metadata.namespace && r.ownerUid === d.metadata.uid) out.push(r);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** `kubectl get deployments`: READY `ready/desired`, UP-TO-DATE, AVAILABLE. */
export function deploymentColumns(d: Deployment): { ready: string; upToDate: number; available: number } {
  const s = d.status;
  return {
    ready: `${s.readyReplicas ?? 0}/${d.spec.replicas ?? 1}`,
    upToDate: s.updatedReplicas ?? 0,
    available: s.availableReplicas ?? 0,
  };
}
