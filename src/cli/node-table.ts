import { parseTime } from '../core/clock.js';
import type { Lease } from '../core/lease.js';
import { readyCondition, zoneKeyOf, zoneObjectName, type Node, type Taint } from '../core/node.js';
import { parseQuantity } from '../core/quantity.js';
import { age, ago } from './age.js';
import { nodeStatusStyle } from './colour.js';
import { styled, type Cell } from './table-printer.js';

export const NODE_HEADERS = ['NAME', 'STATUS', 'ZONE', 'PODS', 'CPU', 'MEMORY', 'TAINTS', 'LAST HEARTBEAT', 'AGE'];
export const NODE_WIDE_HEADERS = [
  'NAME',
  'STATUS',
  'ZONE',
  'PODS',
  'CPU',
  'MEMORY',
  'LAST HEARTBEAT',
  'AGE',
  'VERSION',
  'OS/ARCH',
  'LEASE HOLDER',
  'LEASE DURATION',
  'ADDRESSES',
  'TAINTS',
];

/**
 * kubectl's node STATUS: the Ready condition's word, `Unknown` without one, `,Suspect` while the controller doubts
 * a node that is still Ready (docs/node-lifecycle.md#suspect; once Unknown the doubt says nothing more),
 * `,SchedulingDisabled` when cordoned.
 */
export function nodeStatus(node: Node): string {
  const ready = readyCondition(node);
  const word = ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown';
  const doubted = node.status.conditions?.some((c) => c.type === 'Suspect' && c.status === 'True') === true;
  const suspect = word === 'Ready' && doubted ? ',Suspect' : '';
  return node.spec.unschedulable === true ? `${word}${suspect},SchedulingDisabled` : `${word}${suspect}`;
}

/** The newer of the lease's renewTime and the Ready heartbeat: either one proves the agent alive. */
export function lastHeartbeat(node: Node, lease: Lease | undefined): string | undefined {
  const candidates = [lease?.spec.renewTime, readyCondition(node)?.lastHeartbeatTime].filter(
    (t): t is string => t !== undefined && !Number.isNaN(parseTime(t)),
  );
  if (candidates.length === 0) return undefined;
  return candidates.reduce((a, b) => (parseTime(b) > parseTime(a) ? b : a));
}

/** The zone column: the Zone object's name (`default` for unlabelled nodes), as `sheepctl zones` lists it. */
export function nodeZone(node: Node): string {
  return zoneObjectName(zoneKeyOf(node.metadata.labels));
}

const WELL_KNOWN_PREFIX = 'node.kubernetes.io/';

/** Narrow TAINTS: `unreachable:NoExecute`, the well-known prefix dropped, in spec order (stable). */
export function shortTaints(taints: Taint[] | undefined): string {
  return (taints ?? [])
    .map((t) => `${t.key.startsWith(WELL_KNOWN_PREFIX) ? t.key.slice(WELL_KNOWN_PREFIX.length) : t.key}:${t.effect}`)
    .join(',');
}

/** A taint in kubectl's `key=value:effect` form. */
export function formatTaint(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
}

export function fullTaints(taints: Taint[] | undefined): string {
  return (taints ?? []).map(formatTaint).join(',');
}

/** PODS: the pods the agent reports running on the node (status.podCount); '' when it reports none. */
export function nodePods(node: Node): string {
  return node.status.podCount === undefined ? '' : String(node.status.podCount);
}

/** The allocatable amount of `resource` (what pods may use), else the capacity; NaN when neither parses. */
function allocatable(node: Node, resource: 'cpu' | 'memory'): number {
  const q = node.status.allocatable?.[resource] ?? node.status.capacity?.[resource];
  return q === undefined ? Number.NaN : parseQuantity(q);
}

/** CPU in millicores (`4000m`), as the seed design's table shows it. */
export function nodeCpu(node: Node): string {
  const cpu = allocatable(node, 'cpu');
  return Number.isFinite(cpu) ? `${Math.round(cpu * 1000)}m` : '';
}

/** MEMORY in GiB with one decimal (`15.6Gi`). */
export function nodeMemory(node: Node): string {
  const bytes = allocatable(node, 'memory');
  return Number.isFinite(bytes) ? `${(bytes / 2 ** 30).toFixed(1)}Gi` : '';
}

export function nodeRow(node: Node, lease: Lease | undefined, now: number, colour: boolean, wide: boolean): Cell[] {
  const status = nodeStatus(node);
  const statusCell = styled(status, nodeStatusStyle(status), colour);
  const heartbeat = ago(lastHeartbeat(node, lease), now);
  const created = age(node.metadata.creationTimestamp, now);
  const resources = [nodePods(node), nodeCpu(node), nodeMemory(node)];
  if (!wide) {
    return [
      node.metadata.name,
      statusCell,
      nodeZone(node),
      ...resources,
      shortTaints(node.spec.taints),
      heartbeat,
      created,
    ];
  }
  const info = node.status.nodeInfo;
  return [
    node.metadata.name,
    statusCell,
    nodeZone(node),
    ...resources,
    heartbeat,
    created,
    info?.agentVersion ?? '',
    info ? `${info.os}/${info.arch}` : '',
    lease?.spec.holderIdentity ?? '',
    lease ? `${lease.spec.leaseDurationSeconds}s` : '',
    (node.status.addresses ?? []).map((a) => a.address).join(','),
    fullTaints(node.spec.taints),
  ];
}
