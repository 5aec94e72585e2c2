import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { objectKey } from '../core/object-key.js';
import type { Pod } from '../core/pod.js';
import { DEFAULT_EVENT_GC_INTERVAL_MS } from './event-gc.js';
import { deleteEach, forEachInPages, pickInPages, runPeriodicGc, type DoomedRef } from './periodic-gc.js';
import type { Registry } from './registry.js';

export interface OrphanGcDeps {
  registry: Registry;
  clock: Clock;
  intervalMs?: number;
  log: Logger;
  signal: AbortSignal;
}

/** A pod whose owners are all Deployments (by uid): an orphan once none of them exists in its namespace. */
function deploymentOwned(pod: Pod): boolean {
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length === 0 || pod.metadata.deletionTimestamp !== undefined) return false;
  return owners.every((o) => o.kind === 'Deployment');
}

/**
 * Kubernetes' garbage collector for the one owner kind shepherd has: deletes (gracefully) every pod whose owning
 * Deployments are gone. Deleting a Deployment already deletes its pods (deployment-registry.ts); this pass is what
 * makes that hold across servers and crashes: a pod a controller created for a Deployment deleted meanwhile, or
 * one a server left behind when it stopped half-way through a cascade. Pods are listed before Deployments, so an
 * owner that existed when its pod was listed is still in the later list unless it was deleted since. Both lists are
 * read in pages (periodic-gc.ts); of each pod only its name, resourceVersion and owners' keys are kept.
 */
export async function collectOrphanPods(registry: Registry): Promise<number> {
  const owners = new Map<DoomedRef, string[]>();
  const { refs } = await pickInPages(registry.store, 'pods', deploymentOwned, {
    picked: (pod, ref) =>
      owners.set(
        ref,
        (pod.metadata.ownerReferences ?? []).map((o) => objectKey({ namespace: pod.metadata.namespace, name: o.uid })),
      ),
  });
  const live = new Set<string>();
  await forEachInPages(registry.store, 'deployments', (d) =>
    live.add(objectKey({ namespace: d.metadata.namespace, name: d.metadata.uid })),
  );
  return deleteEach(
    refs,
    (ref) => !(owners.get(ref) ?? []).some((key) => live.has(key)),
    (ref, rv) => registry.pods.delete(ref.metadata.namespace ?? '', ref.metadata.name, { expectedResourceVersion: rv }),
  );
}

/** Runs collectOrphanPods every intervalMs (default once a minute) until the signal aborts. */
export function startOrphanGc(deps: OrphanGcDeps): Promise<void> {
  const intervalMs = deps.intervalMs ?? DEFAULT_EVENT_GC_INTERVAL_MS;
  return runPeriodicGc({ ...deps, intervalMs }, 'orphaned pods', () => collectOrphanPods(deps.registry));
}
