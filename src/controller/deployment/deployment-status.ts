import type { Deployment, DeploymentStatus } from '../../core/deployment.js';
import { isPodReady, type Pod } from '../../core/pod.js';
import { hashOf, isActive, isAvailable, readySince } from './active-pods.js';

/**
 * A Deployment's status from its pods (Kubernetes' calculateStatus, docs/workloads.md#status): `replicas` counts
 * active pods (terminating and finished ones do not count), `updatedReplicas` those of the current template,
 * `readyReplicas` the ready ones, `availableReplicas` those ready for more than minReadySeconds, and
 * `unavailableReplicas` how many are missing from the larger of `replicas` and `spec.replicas` (Kubernetes counts
 * against its ReplicaSets' sizes, which during a surge exceed spec.replicas). Conditions are kept as they are.
 */
export function computeStatus(
  deployment: Deployment,
  pods: readonly Pod[],
  hash: string,
  now: number,
): DeploymentStatus {
  const minReady = deployment.spec.minReadySeconds ?? 0;
  let replicas = 0;
  let updated = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    if (!isActive(pod)) continue;
    replicas++;
    if (hashOf(pod) === hash) updated++;
    if (isPodReady(pod)) ready++;
    if (isAvailable(pod, minReady, now)) available++;
  }
  const desired = deployment.spec.replicas ?? 1;
  const status: DeploymentStatus = {
    observedGeneration: deployment.metadata.generation ?? 0,
    replicas,
    updatedReplicas: updated,
    readyReplicas: ready,
    availableReplicas: available,
    unavailableReplicas: Math.max(0, Math.max(replicas, desired) - available),
  };
  if (deployment.status.conditions !== undefined) status.conditions = deployment.status.conditions;
  return status;
}

/** Whether a status write would change anything. */
export function statusChanged(current: DeploymentStatus, next: DeploymentStatus): boolean {
  return (
    current.observedGeneration !== next.observedGeneration ||
    current.replicas !== next.replicas ||
    current.updatedReplicas !== next.updatedReplicas ||
    current.readyReplicas !== next.readyReplicas ||
    current.availableReplicas !== next.availableReplicas ||
    current.unavailableReplicas !== next.unavailableReplicas
  );
}

/**
 * How long until the next ready pod becomes available (minReadySeconds), so the controller can look again then
 * (Kubernetes requeues after minReadySeconds); undefined when no pod is waiting for that.
 */
export function nextAvailableIn(pods: readonly Pod[], minReadySeconds: number, now: number): number | undefined {
  if (minReadySeconds <= 0) return undefined;
  let soonest: number | undefined;
  for (const pod of pods) {
    if (!isActive(pod)) continue;
    const since = readySince(pod);
    if (since === undefined || isAvailable(pod, minReadySeconds, now)) continue;
    const wait = since + minReadySeconds * 1000 - now + 1;
    if (soonest === undefined || wait < soonest) soonest = wait;
  }
  return soonest;
}
