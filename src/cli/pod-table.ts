import { parseTime } from '../core/clock.js';
import { isPodReady, type Pod } from '../core/pod.js';
import { age } from './age.js';
import type { Cell } from './table-printer.js';

export const POD_HEADERS = ['NAME', 'READY', 'STATUS', 'RESTARTS', 'NODE', 'AGE'];
export const POD_WIDE_HEADERS = [...POD_HEADERS, 'IP', 'CONTROLLED BY'];

/** The headers of `get pods`: NAMESPACE first with `-A`, as kubectl prints it. */
export function podHeaders(wide: boolean, allNamespaces: boolean): string[] {
  const headers = wide ? POD_WIDE_HEADERS : POD_HEADERS;
  return allNamespaces ? ['NAMESPACE', ...headers] : headers;
}

/**
 * kubectl's pod STATUS (printPod in kubernetes/pkg/printers/internalversion/printers.go): the pod's reason or phase;
 * then a container's waiting reason (CrashLoopBackOff, ContainerCreating), its terminated reason (Completed, Error),
 * or `Signal:N` / `ExitCode:N`; `Running` (`NotReady` when the pod is not Ready) when a Completed container sits
 * beside running ones; and `Terminating` once the deletion has begun (`Unknown` when its node was lost).
 */
export function podStatus(pod: Pod): string {
  let reason = pod.status.reason || pod.status.phase || 'Pending';
  let running = false;
  // The first container's state wins, as kubectl's loop runs from the last container to the first.
  for (const c of [...(pod.status.containerStatuses ?? [])].reverse()) {
    const { waiting, terminated } = c.state;
    if (waiting?.reason) reason = waiting.reason;
    else if (terminated?.reason) reason = terminated.reason;
    else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
    else if (c.state.running && c.ready) running = true;
  }
  if (reason === 'Completed' && running) reason = isPodReady(pod) ? 'Running' : 'NotReady';
  if (pod.metadata.deletionTimestamp !== undefined) return pod.status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

/** READY: ready containers / containers in the spec. */
export function podReady(pod: Pod): string {
  const ready = (pod.status.containerStatuses ?? []).filter((c) => c.ready).length;
  return `${ready}/${pod.spec.containers.length}`;
}

/** RESTARTS: the sum over containers, with how long ago the last one ended (`3 (2m ago)`), as kubectl prints it. */
export function podRestarts(pod: Pod, now: number): string {
  let restarts = 0;
  let last: string | undefined;
  for (const c of pod.status.containerStatuses ?? []) {
    restarts += c.restartCount;
    const finished = c.lastState?.terminated?.finishedAt;
    if (finished !== undefined && (last === undefined || parseTime(finished) > parseTime(last))) last = finished;
  }
  return restarts > 0 && last !== undefined ? `${restarts} (${age(last, now)} ago)` : String(restarts);
}

/** `Deployment/web` for a pod a Deployment owns; '' otherwise. */
export function podController(pod: Pod): string {
  const owner = pod.metadata.ownerReferences?.find((o) => o.controller === true);
  return owner ? `${owner.kind}/${owner.name}` : '';
}

export function podRow(pod: Pod, now: number, wide: boolean, allNamespaces: boolean): Cell[] {
  const row: Cell[] = [
    pod.metadata.name,
    podReady(pod),
    podStatus(pod),
    podRestarts(pod, now),
    pod.spec.nodeName ?? '',
    age(pod.metadata.creationTimestamp, now),
  ];
  if (wide) row.push(pod.status.hostIP ?? '', podController(pod));
  return allNamespaces ? [pod.metadata.namespace, ...row] : row;
}
