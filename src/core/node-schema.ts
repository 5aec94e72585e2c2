import { z } from 'zod';
import {
  MAX_KIND_CHARS,
  MAX_LABEL_VALUE_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_QUALIFIED_NAME_CHARS,
  MAX_REASON_CHARS,
  MAX_SHORT_TEXT_CHARS,
} from './limits.js';
import { ObjectMetaSchema, TimeSchema } from './meta.js';
import { QUANTITY_RE } from './quantity.js';

/** The zod schemas of Node (docs/api.md); the registry validates client writes with them. */
const ShortText = z.string().max(MAX_SHORT_TEXT_CHARS);

export const TaintEffectSchema = z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
export type TaintEffect = z.infer<typeof TaintEffectSchema>;

export const TaintSchema = z.strictObject({
  key: z.string().min(1).max(MAX_QUALIFIED_NAME_CHARS),
  value: z.string().max(MAX_LABEL_VALUE_CHARS).optional(),
  effect: TaintEffectSchema,
  timeAdded: TimeSchema.optional(),
});
export type Taint = z.infer<typeof TaintSchema>;

export const ConditionStatusSchema = z.enum(['True', 'False', 'Unknown']);
export type ConditionStatus = z.infer<typeof ConditionStatusSchema>;

export const NodeConditionSchema = z.strictObject({
  type: z.string().min(1).max(MAX_KIND_CHARS),
  status: ConditionStatusSchema,
  reason: z.string().max(MAX_REASON_CHARS).optional(),
  message: z.string().max(MAX_MESSAGE_CHARS).optional(),
  lastHeartbeatTime: TimeSchema.optional(),
  lastTransitionTime: TimeSchema.optional(),
});
export type NodeCondition = z.infer<typeof NodeConditionSchema>;

export const NodeSpecSchema = z.strictObject({
  taints: z.array(TaintSchema).max(64).optional(),
  unschedulable: z.boolean().optional(),
});
export type NodeSpec = z.infer<typeof NodeSpecSchema>;

export const QuantitySchema = z
  .string()
  .max(64)
  .regex(QUANTITY_RE, 'must be a Kubernetes quantity such as "2", "500m", "24576Mi" or "110"');

/** A node's `capacity` and `allocatable`: what it has, and what of that pods may use. */
export const ResourceListSchema = z.strictObject({
  cpu: QuantitySchema.optional(),
  memory: QuantitySchema.optional(),
  pods: QuantitySchema.optional(),
});
export type ResourceList = z.infer<typeof ResourceListSchema>;

export const NodeStatusSchema = z.strictObject({
  conditions: z.array(NodeConditionSchema).max(32).optional(),
  nodeInfo: z
    .strictObject({
      agentVersion: ShortText,
      hostname: ShortText,
      os: ShortText,
      arch: ShortText,
    })
    .optional(),
  addresses: z
    .array(z.strictObject({ type: z.string().max(MAX_KIND_CHARS), address: ShortText }))
    .max(32)
    .optional(),
  podCount: z.number().int().nonnegative().optional(),
  capacity: ResourceListSchema.optional(),
  allocatable: ResourceListSchema.optional(),
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
