import { isDeepStrictEqual } from 'node:util';
import type { ConditionStatus } from '../../core/node.js';
import type { ContainerStatus, PodCondition, PodPhase, PodStatus } from '../../core/pod.js';
import type { ContainerView } from './pod-runtime.js';

/**
 * The status an agent writes for a pod it runs, as pure functions of what runs (the kubelet's
 * generateAPIPodStatus and getPhase, pkg/kubelet/kubelet_pods.go). Conditions keep their lastTransitionTime while
 * their status stays the same, and conditions of other types (set by other writers) are kept, so recomputing an
 * unchanged pod gives an equal status and no write.
 */

/** The condition types the agent sets; others stay as they are. */
export const AGENT_POD_CONDITIONS: readonly string[] = ['PodScheduled', 'Ready'];

function isWaitingFirst(s: ContainerStatus): boolean {
  return s.state.waiting !== undefined && s.lastState === undefined && s.restartCount === 0;
}

/**
 * kubelet getPhase: Pending while a container has not started yet; Running while one runs or will run again;
 * once every container is done, Failed if any ended with a non-zero exit code, else Succeeded.
 */
export function podPhase(containers: readonly ContainerView[]): PodPhase {
  if (containers.some((c) => isWaitingFirst(c.status))) return 'Pending';
  if (!containers.every((c) => c.done)) return 'Running';
  const failed = containers.some((c) => (c.status.state.terminated?.exitCode ?? 0) !== 0);
  return failed ? 'Failed' : 'Succeeded';
}

function condition(
  previous: readonly PodCondition[] | undefined,
  type: string,
  status: ConditionStatus,
  now: string,
  reason?: string,
  message?: string,
): PodCondition {
  const prev = previous?.find((c) => c.type === type);
  const lastTransitionTime =
    prev !== undefined && prev.status === status && prev.lastTransitionTime !== undefined
      ? prev.lastTransitionTime
      : now;
  return {
    type,
    status,
    ...(reason === undefined ? {} : { reason }),
    ...(message === undefined ? {} : { message }),
    lastTransitionTime,
  };
}

function readyCondition(previous: PodStatus, phase: PodPhase, statuses: readonly ContainerStatus[], now: string) {
  if (phase === 'Succeeded' || phase === 'Failed') {
    return condition(previous.conditions, 'Ready', 'False', now, 'PodCompleted');
  }
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  if (unready.length === 0) return condition(previous.conditions, 'Ready', 'True', now);
  return condition(
    previous.conditions,
    'Ready',
    'False',
    now,
    'ContainersNotReady',
    `containers with unready status: [${unready.join(' ')}]`,
  );
}

function withConditions(previous: PodStatus, ready: PodCondition, now: string): PodCondition[] {
  const foreign = (previous.conditions ?? []).filter((c) => !AGENT_POD_CONDITIONS.includes(c.type));
  return [condition(previous.conditions, 'PodScheduled', 'True', now), ready, ...foreign];
}

export interface PodStatusInputs {
  /** The status the API holds now. */
  previous: PodStatus;
  containers: readonly ContainerView[];
  /** The node's address (its InternalIP). */
  hostIP: string | undefined;
  /** When the agent took the pod on: its startTime unless the API already holds one. */
  startTime: string;
  /** Now, formatted (formatTime). */
  now: string;
}

/** The status of a pod the agent runs: phase, Ready and PodScheduled, startTime, hostIP and containerStatuses. */
export function runningPodStatus(inputs: PodStatusInputs): PodStatus {
  const { previous, containers, hostIP, startTime, now } = inputs;
  const phase = podPhase(containers);
  const statuses = containers.map((c) => c.status);
  return {
    phase,
    ...(hostIP === undefined ? {} : { hostIP }),
    startTime: previous.startTime ?? startTime,
    conditions: withConditions(previous, readyCondition(previous, phase, statuses, now), now),
    containerStatuses: statuses,
  };
}

/** The status of a pod this agent will not run: Failed, with a reason and a message that says what to do. */
export function refusedPodStatus(
  previous: PodStatus,
  containerNames: readonly string[],
  hostIP: string | undefined,
  now: string,
  reason: string,
  message: string,
): PodStatus {
  const statuses: ContainerStatus[] = containerNames.map((name) => ({
    name,
    ready: false,
    restartCount: 0,
    state: { waiting: { reason } },
  }));
  return {
    phase: 'Failed',
    reason,
    message,
    ...(hostIP === undefined ? {} : { hostIP }),
    startTime: previous.startTime ?? now,
    conditions: withConditions(previous, condition(previous.conditions, 'Ready', 'False', now, 'PodCompleted'), now),
    containerStatuses: statuses,
  };
}

/** Whether two statuses are the same (key order aside): the test before every status write. */
export function podStatusEqual(a: PodStatus, b: PodStatus): boolean {
  return isDeepStrictEqual(a, b);
}
