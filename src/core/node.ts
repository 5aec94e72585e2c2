import type { ObjectMeta } from './meta.js';
import type {
  TaintEffect,
  Taint,
  ConditionStatus,
  NodeCondition,
  NodeSpec,
  NodeStatus,
  NodeInput,
  ResourceList,
} from './node-schema.js';

// Types only (erased at run time): clients such as the agent use Node without loading zod.
export type { TaintEffect, Taint, ConditionStatus, NodeCondition, NodeSpec, NodeStatus, NodeInput, ResourceList };

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const REGION_LABEL = 'topology.kubernetes.io/region';
export const EXCLUDE_DISRUPTION_LABEL = 'node.kubernetes.io/exclude-disruption';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

export interface Node {
  apiVersion: 'v1';
  kind: 'Node';
  metadata: ObjectMeta;
  spec: NodeSpec;
  status: NodeStatus;
}

export function readyCondition(node: Node): NodeCondition | undefined {
  return node.status.conditions?.find((c) => c.type === 'Ready');
}

/**
 * Zone key: `region.zone` when a region label is present, else the zone label, else ""
 * (docs/node-lifecycle.md#d10-zone-key-and-exclusion).
 */
export function zoneKeyOf(labels: Record<string, string> | undefined): string {
  const zone = labels?.[ZONE_LABEL] ?? '';
  const region = labels?.[REGION_LABEL];
  if (region !== undefined && region !== '') return `${region}.${zone}`;
  return zone;
}

/** The Zone object name for a zone key: "" is shown as `default`. */
export function zoneObjectName(zoneKey: string): string {
  return zoneKey === '' ? 'default' : zoneKey;
}
