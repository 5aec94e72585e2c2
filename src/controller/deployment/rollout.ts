import {
  DEFAULT_MAX_SURGE,
  DEFAULT_MAX_UNAVAILABLE,
  scaledValue,
  type Deployment,
  type DeploymentStrategy,
} from '../../core/deployment.js';
import type { Pod } from '../../core/pod.js';
import { compareForScaleDown, type NodeTrust } from './active-pods.js';

/**
 * A Deployment's rollout, planned one step at a time (Kubernetes' deployment controller: rolloutRolling and
 * rolloutRecreate), over pods instead of ReplicaSets: the pods of one `pod-template-hash` play the part of one
 * ReplicaSet, the current template's hash is the new one. Every function here is pure; the controller carries the
 * step out and plans again once the informer shows its result (docs/workloads.md#rollout).
 */

/** An active pod (neither terminating nor finished) as the planner sees it. */
export interface PodView {
  pod: Pod;
  available: boolean;
}

/** The active pods of one old template hash; groups come oldest first (as Kubernetes sorts old ReplicaSets). */
export interface OldGroup {
  hash: string;
  pods: PodView[];
}

export interface RolloutState {
  replicas: number;
  hash: string;
  newPods: PodView[];
  oldGroups: OldGroup[];
  /** Recreate: pods of old hashes that still run (terminating included: they have not stopped yet). */
  oldPodsRunning: number;
  trust: NodeTrust;
}

/** A ReplicaSet-like group resized from → to, for the ScalingReplicaSet event. */
export interface Scaling {
  hash: string;
  from: number;
  to: number;
}

/** One step: create `create` pods of the new template, or delete `remove` (in that order of preference). */
export interface Step {
  create: number;
  remove: Pod[];
  scaling: Scaling[];
}

const NOTHING: Step = Object.freeze({ create: 0, remove: [], scaling: [] }) as Step;

/** maxSurge rounded up, maxUnavailable down, and never both 0 (Kubernetes' ResolveFenceposts). */
export function resolveFenceposts(
  strategy: DeploymentStrategy | undefined,
  replicas: number,
): { maxSurge: number; maxUnavailable: number } {
  const ru = strategy?.rollingUpdate;
  const maxSurge = scaledValue(ru?.maxSurge, DEFAULT_MAX_SURGE, replicas, true);
  const maxUnavailable = scaledValue(ru?.maxUnavailable, DEFAULT_MAX_UNAVAILABLE, replicas, false);
  if (maxSurge === 0 && maxUnavailable === 0) return { maxSurge, maxUnavailable: 1 };
  return { maxSurge, maxUnavailable };
}

export function planStep(deployment: Deployment, state: RolloutState): Step {
  return deployment.spec.strategy?.type === 'Recreate'
    ? planRecreate(state)
    : planRollingUpdate(state, resolveFenceposts(deployment.spec.strategy, state.replicas));
}

/**
 * RollingUpdate: first grow the new pods up to `replicas` without exceeding `replicas + maxSurge` pods in all;
 * otherwise shrink the old ones, never below `replicas - maxUnavailable` available pods, removing old pods that are
 * not available first (Kubernetes' reconcileNewReplicaSet, then reconcileOldReplicaSets with
 * cleanupUnhealthyReplicas and scaleDownOldReplicaSetsForRollingUpdate).
 */
export function planRollingUpdate(state: RolloutState, fence: { maxSurge: number; maxUnavailable: number }): Step {
  const { replicas, newPods, oldGroups } = state;
  const newCount = newPods.length;
  const oldCount = oldGroups.reduce((n, g) => n + g.pods.length, 0);
  const total = newCount + oldCount;
  if (newCount > replicas) return shrink(state.hash, newPods, newCount - replicas, state.trust);
  if (newCount < replicas) {
    const up = Math.min(replicas + fence.maxSurge - total, replicas - newCount);
    if (up > 0) return { create: up, remove: [], scaling: [{ hash: state.hash, from: newCount, to: newCount + up }] };
  }
  if (oldCount === 0) return NOTHING;
  const minAvailable = replicas - fence.maxUnavailable;
  const newAvailable = newPods.filter((p) => p.available).length;
  const maxScaledDown = total - minAvailable - (newCount - newAvailable);
  if (maxScaledDown <= 0) return NOTHING;
  const remove: Pod[] = [];
  const scaling: Scaling[] = [];
  const left = new Map<OldGroup, PodView[]>();
  // Old pods that are not available go first, up to maxScaledDown: removing them costs no availability.
  let cleaned = 0;
  for (const group of oldGroups) {
    const unavailable = ordered(
      group.pods.filter((p) => !p.available),
      state.trust,
    );
    const k = Math.min(maxScaledDown - cleaned, unavailable.length);
    const gone = unavailable.slice(0, Math.max(0, k));
    cleaned += gone.length;
    remove.push(...gone.map((v) => v.pod));
    left.set(
      group,
      group.pods.filter((p) => !gone.includes(p)),
    );
  }
  // Then available old pods, oldest group first, as long as more than minAvailable pods stay available.
  const available = newAvailable + oldGroups.reduce((n, g) => n + g.pods.filter((p) => p.available).length, 0);
  let budget = Math.max(0, available - minAvailable);
  for (const group of oldGroups) {
    const pods = left.get(group) ?? [];
    const k = Math.min(pods.length, budget);
    budget -= k;
    const gone = ordered(pods, state.trust).slice(0, k);
    remove.push(...gone.map((v) => v.pod));
    const removed = group.pods.length - pods.length + gone.length;
    if (removed > 0) scaling.push({ hash: group.hash, from: group.pods.length, to: group.pods.length - removed });
  }
  return remove.length === 0 ? NOTHING : { create: 0, remove, scaling };
}

/**
 * Recreate: remove every old pod; wait until none runs any more (terminating ones included); then bring the new
 * pods to `replicas` (Kubernetes' rolloutRecreate).
 */
export function planRecreate(state: RolloutState): Step {
  const old = state.oldGroups.filter((g) => g.pods.length > 0);
  if (old.length > 0) {
    return {
      create: 0,
      remove: old.flatMap((g) => g.pods.map((v) => v.pod)),
      scaling: old.map((g) => ({ hash: g.hash, from: g.pods.length, to: 0 })),
    };
  }
  if (state.oldPodsRunning > 0) return NOTHING;
  const newCount = state.newPods.length;
  if (newCount < state.replicas) {
    return {
      create: state.replicas - newCount,
      remove: [],
      scaling: [{ hash: state.hash, from: newCount, to: state.replicas }],
    };
  }
  if (newCount > state.replicas) return shrink(state.hash, state.newPods, newCount - state.replicas, state.trust);
  return NOTHING;
}

function shrink(hash: string, pods: PodView[], count: number, trust: NodeTrust): Step {
  const remove = ordered(pods, trust)
    .slice(0, count)
    .map((v) => v.pod);
  return { create: 0, remove, scaling: [{ hash, from: pods.length, to: pods.length - remove.length }] };
}

function ordered(pods: PodView[], trust: NodeTrust): PodView[] {
  return [...pods].sort((a, b) => compareForScaleDown(a.pod, b.pod, trust));
}
