import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { objectKey } from '../core/object-key.js';
import type { Pod } from '../core/pod.js';
import { DEFAULT_EVENT_GC_INTERVAL_MS } from './event-gc.js';
import { deleteEach, runPeriodicGc } from './periodic-gc.js';
import type { Registry } from './registry.js';

export interface OrphanGcDeps {
  registry: Registry;
  clock: Clock;
  intervalMs?: number;
  log: Logger;
  signal: AbortSignal;
}

/** A pod whose owners are all Deployments, none of which exists any more (by uid, in the pod's namespace). */
function isOrphan(pod: Pod, liveDeployments: ReadonlySet<string>): boolean {
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length === 0 || pod.metadata.deletionTimestamp !== undefined) return false;
  if (!owners.every((o) => o.kind === 'Deployment')) return false;
  return !owners.some((o) => liveDeployments.has(objectKey({ namespace: pod.metadata.namespace, name: o.uid })));
}

/**
 * Kubernetes' garbage collector for the one owner kind shepherd has: deletes (gracefully) every pod whose owning
 * Deployments are gone. Deleting a Deployment already deletes its pods (deployment-registry.ts); this pass is what
 * makes that hold across servers and crashes: a pod a controller created for a Deployment deleted meanwhile, or
 * one a server left behind when it stopped half-way through a cascade. Pods are listed before Deployments, so an
 * owner that existed when its pod was listed is still in the later list unless it was deleted since.
 */
export async function collectOrphanPods(registry: Registry): Promise<number> {
  const pods = (await registry.store.list('pods')).items;
  const deployments = (await registry.store.list('deployments')).items;
  const live = new Set(deployments.map((d) => objectKey({ namespace: d.metadata.namespace, name: d.metadata.uid })));
  return deleteEach(
    pods,
    (pod) => isOrphan(pod, live),
    (pod, rv) => registry.pods.delete(pod.metadata.namespace, pod.metadata.name, { expectedResourceVersion: rv }),
  );
}

/** Runs collectOrphanPods every intervalMs (default once a minute) until the signal aborts. */
export function startOrphanGc(deps: OrphanGcDeps): Promise<void> {
  const intervalMs = deps.intervalMs ?? DEFAULT_EVENT_GC_INTERVAL_MS;
  return runPeriodicGc({ ...deps, intervalMs }, 'orphaned pods', () => collectOrphanPods(deps.registry));
}
