import type { ResourceList } from '../core/node.js';

const MI = 2 ** 20;

/** A cpu count as a Kubernetes quantity: whole cores as `"4"`, fractions in millicores (`"1500m"`). */
export function cpuQuantity(cpus: number): string {
  return Number.isInteger(cpus) ? String(cpus) : `${Math.round(cpus * 1000)}m`;
}

/**
 * What the node offers pods, as the kubelet reports `status.capacity` (docs/api.md#node-additions): cpu (the
 * host's available parallelism, or --cpu-capacity), memory in whole MiB (`"15872Mi"`) and the pods it takes
 * (--max-pods). The agent reserves nothing for itself, so `allocatable` is the same list.
 */
export function nodeResources(cpus: number, memoryBytes: number, maxPods: number): ResourceList {
  return { cpu: cpuQuantity(cpus), memory: `${Math.floor(memoryBytes / MI)}Mi`, pods: String(maxPods) };
}
