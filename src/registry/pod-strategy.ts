import { isDeepStrictEqual } from 'node:util';
import { formatTime, parseTime } from '../core/clock.js';
import { ConflictError, type StatusCause } from '../core/errors.js';
import { TAINT_NOT_READY, TAINT_UNREACHABLE, type Node } from '../core/node.js';
import { objectKey } from '../core/object-key.js';
import {
  DEFAULT_TERMINATION_GRACE_SECONDS,
  DEFAULT_TOLERATION_SECONDS,
  isTerminated,
  TAINT_OUT_OF_SERVICE,
  type Pod,
  type PodCondition,
  type PodSpec,
  type PodStatus,
  type Toleration,
} from '../core/pod.js';

/**
 * Pod semantics as pure functions (Kubernetes' podStrategy, DefaultTolerationSeconds admission and graceful
 * deletion): the registry applies them to stored objects, and the test fake (test/support/fake-api-client.ts)
 * applies the same ones, so the two cannot drift apart. docs/api.md#pod describes them.
 */

/** The flags `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`. */
export interface PodAdmission {
  notReadyTolerationSeconds: number;
  unreachableTolerationSeconds: number;
}

export const DEFAULT_POD_ADMISSION: PodAdmission = {
  notReadyTolerationSeconds: DEFAULT_TOLERATION_SECONDS,
  unreachableTolerationSeconds: DEFAULT_TOLERATION_SECONDS,
};

/** Kubernetes' pod defaults: restartPolicy Always, terminationGracePeriodSeconds 30. */
export function withPodDefaults(spec: PodSpec): PodSpec {
  return {
    ...spec,
    restartPolicy: spec.restartPolicy ?? 'Always',
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_SECONDS,
  };
}

/** DefaultTolerationSeconds: whether `tolerations` already cover `key`:NoExecute (an empty key or effect matches all). */
function coversNoExecute(tolerations: readonly Toleration[], key: string): boolean {
  return tolerations.some(
    (t) =>
      (t.key === undefined || t.key === '' || t.key === key) && (t.effect === undefined || t.effect === 'NoExecute'),
  );
}

/**
 * Kubernetes' DefaultTolerationSeconds admission plugin, on create and on update: a pod that does not tolerate
 * `node.kubernetes.io/not-ready:NoExecute` or `node.kubernetes.io/unreachable:NoExecute` gets a toleration for it
 * (operator Exists, for the configured seconds), so that its node's brief outage does not evict it at once.
 */
export function admitPodSpec(spec: PodSpec, admission: PodAdmission): PodSpec {
  const tolerations = [...(spec.tolerations ?? [])];
  const add = (key: string, seconds: number): void => {
    if (!coversNoExecute(tolerations, key)) {
      tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
    }
  };
  add(TAINT_NOT_READY, admission.notReadyTolerationSeconds);
  add(TAINT_UNREACHABLE, admission.unreachableTolerationSeconds);
  return { ...withPodDefaults(spec), tolerations };
}

const IMMUTABLE_MESSAGE =
  'pod updates may not change fields other than metadata (labels, annotations, ownerReferences) and additions to spec.tolerations';

/**
 * What a PUT may change in a pod's spec (Kubernetes' ValidatePodUpdate, reduced): nothing but new tolerations.
 * Every stored toleration must still be there unchanged. `spec.nodeName` may be left out (the stored one is kept)
 * but not changed: only the binding subresource sets it. Answers the causes of a 422, empty when the update is valid.
 */
export function podSpecUpdateProblems(stored: PodSpec, next: PodSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  if (next.nodeName !== undefined && next.nodeName !== stored.nodeName) {
    causes.push({ field: 'spec.nodeName', message: 'may not be changed by an update: bind the pod through …/binding' });
  }
  const tolerations = next.tolerations ?? [];
  if (!(stored.tolerations ?? []).every((old) => tolerations.some((t) => isDeepStrictEqual(t, old)))) {
    causes.push({
      field: 'spec.tolerations',
      message: 'existing tolerations may not be changed or removed; only new ones may be added',
    });
  }
  const rest = ({ nodeName: _n, tolerations: _t, ...others }: PodSpec): object => others;
  if (!isDeepStrictEqual(rest(stored), rest(next))) causes.push({ field: 'spec', message: IMMUTABLE_MESSAGE });
  return causes;
}

/** The spec a valid PUT stores: the body's, with the stored nodeName kept. */
export function updatedPodSpec(stored: PodSpec, next: PodSpec): PodSpec {
  const spec = { ...next };
  if (stored.nodeName !== undefined) spec.nodeName = stored.nodeName;
  return spec;
}

/** A status PUT may not bring a finished pod back (Kubernetes: a pod in a terminal phase stays there). */
export function podStatusUpdateProblems(stored: PodStatus, next: PodStatus): StatusCause[] {
  const finished = stored.phase === 'Succeeded' || stored.phase === 'Failed';
  if (!finished || next.phase === stored.phase) return [];
  return [
    {
      field: 'status.phase',
      message: `may not change from ${stored.phase} to ${next.phase}: a pod that has finished stays finished`,
    },
  ];
}

/**
 * `POST …/pods/{name}/binding` applied to the stored pod: spec.nodeName set and the PodScheduled condition True.
 * A pod already bound or being deleted cannot be bound (409 Conflict, as Kubernetes' assignPod).
 */
export function bindPod(pod: Pod, nodeName: string, now: number): Pod {
  const key = objectKey(pod.metadata);
  if (pod.metadata.deletionTimestamp !== undefined) {
    throw new ConflictError('pods', pod.metadata.name, `pod "${key}" is being deleted: it cannot be bound to a node`);
  }
  if (pod.spec.nodeName !== undefined && pod.spec.nodeName !== '') {
    throw new ConflictError(
      'pods',
      pod.metadata.name,
      `pod "${key}" is already bound to node "${pod.spec.nodeName}": a pod is bound once; delete it to place it again`,
    );
  }
  const scheduled: PodCondition = { type: 'PodScheduled', status: 'True', lastTransitionTime: formatTime(now) };
  const conditions = [...(pod.status.conditions ?? []).filter((c) => c.type !== 'PodScheduled'), scheduled];
  return { ...pod, spec: { ...pod.spec, nodeName }, status: { ...pod.status, conditions } };
}

/** What a DELETE does to a pod. */
export type PodDeletion =
  /** Remove the object now. */
  | { kind: 'remove' }
  /** Store this pod: deletion begins, or its grace period is shortened. */
  | { kind: 'mark'; pod: Pod }
  /** Already terminating with a grace period no longer than the one asked for: nothing changes. */
  | { kind: 'unchanged' };

/** A node declared out of service: its pods cannot be stopped gracefully by anyone, so they go at once. */
function isOutOfService(node: Node): boolean {
  return (node.spec.taints ?? []).some((t) => t.key === TAINT_OUT_OF_SERVICE && t.effect === 'NoExecute');
}

/**
 * Graceful deletion (Kubernetes' BeforeDelete and podStrategy.CheckGracefulDelete). A pod that some agent may be
 * running — bound to an existing node that is not out of service, and not Succeeded or Failed — gets
 * `deletionTimestamp` = now + grace and `deletionGracePeriodSeconds` = grace (grace from the request, else the pod's
 * terminationGracePeriodSeconds, else 30); its agent stops it and then removes it. Any other pod, and any DELETE with
 * grace 0, removes the object at once. A second DELETE may only shorten the grace: the deadline moves to the first
 * request's time plus the new grace. `node` is the pod's node as stored, undefined when it does not exist.
 */
export function planPodDeletion(
  pod: Pod,
  node: Node | undefined,
  gracePeriodSeconds: number | undefined,
  now: number,
): PodDeletion {
  const bound = pod.spec.nodeName !== undefined && pod.spec.nodeName !== '';
  if (!bound || node === undefined || isOutOfService(node) || isTerminated(pod)) return { kind: 'remove' };
  const grace = gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_SECONDS;
  if (grace === 0) return { kind: 'remove' };
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  let deadline = now + grace * 1000;
  if (deletionTimestamp !== undefined) {
    const current = deletionGracePeriodSeconds ?? 0;
    if (grace >= current) return { kind: 'unchanged' };
    deadline = parseTime(deletionTimestamp) - current * 1000 + grace * 1000;
  }
  const metadata = { ...pod.metadata, deletionTimestamp: formatTime(deadline), deletionGracePeriodSeconds: grace };
  return { kind: 'mark', pod: { ...pod, metadata } };
}
