import type { Lease } from '../../core/lease.js';
import { type Node, readyCondition, type TaintEffect, zoneKeyOf, zoneObjectName } from '../../core/node.js';
import { formatBytes, parseQuantity } from './quantity.js';

/** The Ready condition's verdict in one word; `NoStatus` before an agent ever posted one. */
export type NodeState = 'Ready' | 'NotReady' | 'Unknown' | 'NoStatus';

/** What the Nodes table shows of one Node, computed once per object version (see rowOf). */
export interface NodeRow {
  name: string;
  node: Node;
  state: NodeState;
  /** A `Suspect=True` condition beside Ready (docs/api.md, Node additions). */
  suspect: boolean;
  unschedulable: boolean;
  /** The reason and message of the Ready condition, for the status cell's description. */
  detail: string;
  /** The Zone object name (region.zone, or `default` for nodes without a zone label). */
  zone: string;
  /** Taints as `key=value:Effect`, the form `kubectl taint` takes. */
  taints: string[];
  /** The Ready condition's lastHeartbeatTime in ms: the heartbeat when the node has no lease. */
  statusHeartbeat: number | undefined;
  pods: number | undefined;
  maxPods: number | undefined;
  cpu: string | undefined;
  cpuCores: number | undefined;
  memory: string | undefined;
  memoryBytes: number | undefined;
  /** Lower-cased name, zone and taints: what the filter box searches. */
  haystack: string;
}

/** Node status as served today plus the capacity fields the agent reports once pods exist (docs/api.md). */
type NodeStatusWithResources = Node['status'] & {
  allocatable?: Record<string, string>;
  capacity?: Record<string, string>;
};

const EFFECT_RANK: Readonly<Record<TaintEffect, number>> = { NoExecute: 0, NoSchedule: 1, PreferNoSchedule: 2 };

export function taintText(t: { key: string; value?: string; effect: string }): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
}

function stateOf(node: Node): NodeState {
  const ready = readyCondition(node);
  if (ready === undefined) return 'NoStatus';
  return ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown';
}

function summarise(node: Node): NodeRow {
  const ready = readyCondition(node);
  const status = node.status as NodeStatusWithResources;
  const resources = status.allocatable ?? status.capacity;
  // NoExecute first: it is the taint that evicts, so it is the one a narrow column must not cut off.
  const taints = [...(node.spec.taints ?? [])]
    .sort((a, b) => EFFECT_RANK[a.effect] - EFFECT_RANK[b.effect])
    .map(taintText);
  const zone = zoneObjectName(zoneKeyOf(node.metadata.labels));
  const memoryBytes = parseQuantity(resources?.['memory']);
  const heartbeat = ready?.lastHeartbeatTime === undefined ? undefined : Date.parse(ready.lastHeartbeatTime);
  return {
    name: node.metadata.name,
    node,
    state: stateOf(node),
    // Doubt matters only while the node still counts as Ready; an Unknown node's Suspect adds nothing.
    suspect:
      stateOf(node) === 'Ready' &&
      (node.status.conditions?.some((c) => c.type === 'Suspect' && c.status === 'True') ?? false),
    unschedulable: node.spec.unschedulable === true,
    detail:
      ready === undefined ? 'no Ready condition posted yet' : [ready.reason, ready.message].filter(Boolean).join(': '),
    zone,
    taints,
    statusHeartbeat: Number.isNaN(heartbeat) ? undefined : heartbeat,
    pods: status.podCount,
    maxPods: parseQuantity(resources?.['pods']),
    cpu: resources?.['cpu'],
    cpuCores: parseQuantity(resources?.['cpu']),
    memory: memoryBytes === undefined ? resources?.['memory'] : formatBytes(memoryBytes),
    memoryBytes,
    haystack: `${node.metadata.name}\n${zone}\n${taints.join('\n')}`.toLowerCase(),
  };
}

const rows = new WeakMap<Node, NodeRow>();

/** The row of a Node object; watch events replace objects, so a cached row is never stale. */
export function rowOf(node: Node): NodeRow {
  let row = rows.get(node);
  if (row === undefined) {
    row = summarise(node);
    rows.set(node, row);
  }
  return row;
}

/** The node's last sign of life in ms: its Lease's renewTime, else the Ready condition's heartbeat. */
export function heartbeatOf(row: NodeRow, lease: Lease | undefined): number | undefined {
  if (lease === undefined) return row.statusHeartbeat;
  let renew = renewals.get(lease);
  if (renew === undefined) {
    renew = Date.parse(lease.spec.renewTime);
    renewals.set(lease, renew);
  }
  return Number.isNaN(renew) ? row.statusHeartbeat : renew;
}

/** Parsed renewTimes: sorting 10,000 nodes by heartbeat must not parse 10,000 dates each time. */
const renewals = new WeakMap<Lease, number>();
