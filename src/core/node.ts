import { z } from 'zod';
import { ObjectMetaSchema, TimeSchema, type ObjectMeta } from './meta.js';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const REGION_LABEL = 'topology.kubernetes.io/region';
export const EXCLUDE_DISRUPTION_LABEL = 'node.kubernetes.io/exclude-disruption';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

export const TaintEffectSchema = z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
export type TaintEffect = z.infer<typeof TaintEffectSchema>;

export const TaintSchema = z.strictObject({
  key: z.string().min(1),
  value: z.string().optional(),
  effect: TaintEffectSchema,
  timeAdded: TimeSchema.optional(),
});
export type Taint = z.infer<typeof TaintSchema>;

export const ConditionStatusSchema = z.enum(['True', 'False', 'Unknown']);
export type ConditionStatus = z.infer<typeof ConditionStatusSchema>;

export const NodeConditionSchema = z.strictObject({
  type: z.string().min(1),
  status: ConditionStatusSchema,
  reason: z.string().optional(),
  message: z.string().optional(),
  lastHeartbeatTime: TimeSchema.optional(),
  lastTransitionTime: TimeSchema.optional(),
});
export type NodeCondition = z.infer<typeof NodeConditionSchema>;

export const NodeSpecSchema = z.strictObject({
  taints: z.array(TaintSchema).max(64).optional(),
  unschedulable: z.boolean().optional(),
});
export type NodeSpec = z.infer<typeof NodeSpecSchema>;

export const NodeStatusSchema = z.strictObject({
  conditions: z.array(NodeConditionSchema).max(32).optional(),
  nodeInfo: z
    .strictObject({ agentVersion: z.string(), hostname: z.string(), os: z.string(), arch: z.string() })
    .optional(),
  addresses: z.array(z.strictObject({ type: z.string(), address: z.string() })).max(32).optional(),
  podCount: z.number().int().nonnegative().optional(),
});
export type NodeStatus = z.infer<typeof NodeStatusSchema>;

export const NodeInputSchema = z.strictObject({
  apiVersion: z.literal('v1').optional(),
  kind: z.literal('Node').optional(),
  metadata: ObjectMetaSchema,
  spec: NodeSpecSchema.optional(),
  status: NodeStatusSchema.optional(),
});
export type NodeInput = z.infer<typeof NodeInputSchema>;

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

/** DECISIONS 10: zone key is `region.zone` when a region label is present, else the zone label, else "". */
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
