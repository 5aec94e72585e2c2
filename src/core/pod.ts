import type { ObjectMeta } from './meta.js';
import type { Taint } from './node-schema.js';
import type {
  BindingInput,
  Container,
  ContainerState,
  ContainerStatus,
  EnvVar,
  PodCondition,
  PodInput,
  PodPhase,
  PodSpec,
  PodStatus,
  RestartPolicy,
  Toleration,
} from './pod-schema.js';

// Types only (erased at run time): the agent and the clients use Pod without loading zod.
export type {
  BindingInput,
  Container,
  ContainerState,
  ContainerStatus,
  EnvVar,
  PodCondition,
  PodInput,
  PodPhase,
  PodSpec,
  PodStatus,
  RestartPolicy,
  Toleration,
};

export const DEFAULT_NAMESPACE = 'default';
/** Kubernetes' defaults: a pod may stop for 30 s after SIGTERM before SIGKILL; a node holds at most 110 pods. */
export const DEFAULT_TERMINATION_GRACE_SECONDS = 30;
export const DEFAULT_MAX_PODS = 110;
/** kube-apiserver's DefaultTolerationSeconds admission plugin (its flags share these names). */
export const DEFAULT_TOLERATION_SECONDS = 300;
/** A node tainted with this (effect NoExecute) has been declared out of service: its pods are removed at once. */
export const TAINT_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

export interface Pod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: ObjectMeta & { namespace: string };
  spec: PodSpec;
  status: PodStatus;
}

/** Kubernetes' `v1.Toleration.ToleratesTaint`: key, effect and value (for Equal) must match; Exists matches any value. */
export function toleratesTaint(toleration: Toleration, taint: Pick<Taint, 'key' | 'value' | 'effect'>): boolean {
  if (toleration.effect !== undefined && toleration.effect !== taint.effect) return false;
  if (toleration.key !== undefined && toleration.key !== '' && toleration.key !== taint.key) return false;
  if ((toleration.operator ?? 'Equal') === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/** The tolerations of `pod` that tolerate `taint`; empty when the taint is not tolerated. */
export function tolerationsFor(tolerations: readonly Toleration[] | undefined, taint: Taint): Toleration[] {
  return (tolerations ?? []).filter((t) => toleratesTaint(t, taint));
}

/** A pod whose deletion has begun (graceful deletion): it no longer counts as available or as a replica. */
export function isTerminating(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp !== undefined;
}

/** Succeeded or Failed: the pod's containers will not run again and it holds no room on its node. */
export function isTerminated(pod: Pod): boolean {
  return pod.status.phase === 'Succeeded' || pod.status.phase === 'Failed';
}

/** The pod's Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}
