import { readyCondition, zoneKeyOf, type Node } from '../../core/node.js';
import { DEFAULT_MAX_PODS } from '../../core/pod.js';

/** What the pods bound (or assumed) to one node use of it: the scheduler cache keeps one per node name. */
export interface NodeUsage {
  /** Pods bound or assumed and not terminated (Succeeded/Failed): what `status.allocatable.pods` limits. */
  pods: number;
  /**
   * Of those, the ones not terminating, per controller owner uid: what spreading counts. Undefined while there are
   * none: a cold start lists every node before any pod, and 100,000 empty Maps held ~18 MB (BENCHMARKS.md §24).
   */
  owners: Map<string, number> | undefined;
}

/** One node as the scheduler judges it: the Node object and what it derived from it once, plus its usage. */
export interface NodeInfo {
  name: string;
  node: Node;
  zone: string;
  ready: boolean;
  /** The condition `Suspect=True` (the node lifecycle controller's doubt about the node). */
  suspect: boolean;
  /** `status.allocatable.pods`, else 110 (Kubernetes' default max pods). */
  maxPods: number;
  /** Any PreferNoSchedule taint (scoring looks at them only then). */
  preferNoSchedule: boolean;
  usage: NodeUsage;
}

export function newUsage(): NodeUsage {
  return { pods: 0, owners: undefined };
}

export function nodeInfoOf(node: Node, usage: NodeUsage = newUsage()): NodeInfo {
  return {
    name: node.metadata.name,
    node,
    zone: zoneKeyOf(node.metadata.labels),
    ready: readyCondition(node)?.status === 'True',
    suspect: node.status.conditions?.some((c) => c.type === 'Suspect' && c.status === 'True') === true,
    maxPods: allocatablePods(node),
    preferNoSchedule: node.spec.taints?.some((t) => t.effect === 'PreferNoSchedule') === true,
    usage,
  };
}

/**
 * `status.allocatable.pods` as a whole number (a plain integer quantity such as "110"), else the default 110.
 * Read through a narrow type: the agent reports it, and nodes of older agents have none.
 */
export function allocatablePods(node: Node): number {
  const raw = (node.status as { allocatable?: { pods?: string } }).allocatable?.pods;
  if (raw === undefined || !/^\d+$/.test(raw)) return DEFAULT_MAX_PODS;
  return Number(raw);
}

/** Whether a node change can make an unschedulable pod schedulable (kube-scheduler's node events with hints). */
export function mayHelpScheduling(before: NodeInfo, after: NodeInfo): boolean {
  if (after.ready && !before.ready) return true;
  if (before.node.spec.unschedulable === true && after.node.spec.unschedulable !== true) return true;
  if (after.maxPods > before.maxPods) return true;
  if (!sameTaints(before.node, after.node)) return true;
  return !sameLabels(before.node.metadata.labels, after.node.metadata.labels);
}

function sameTaints(a: Node, b: Node): boolean {
  const x = a.spec.taints ?? [];
  const y = b.spec.taints ?? [];
  if (x.length !== y.length) return false;
  return x.every((t, i) => {
    const u = y[i];
    return u !== undefined && t.key === u.key && t.value === u.value && t.effect === u.effect;
  });
}

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((k) => x[k] === y[k]);
}
