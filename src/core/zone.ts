import { z } from 'zod';
import { ObjectMetaSchema, type ObjectMeta } from './meta.js';

export const ZoneStateSchema = z.enum(['Initial', 'Normal', 'PartialDisruption', 'FullDisruption']);
export type ZoneState = z.infer<typeof ZoneStateSchema>;

export const ZoneStatusSchema = z.strictObject({
  state: ZoneStateSchema,
  nodes: z.number().int().nonnegative(),
  notReady: z.number().int().nonnegative(),
  evictionRate: z.number().nonnegative(),
});
export type ZoneStatus = z.infer<typeof ZoneStatusSchema>;

export const ZoneInputSchema = z.strictObject({
  apiVersion: z.literal('v1').optional(),
  kind: z.literal('Zone').optional(),
  metadata: ObjectMetaSchema,
  status: ZoneStatusSchema,
});
export type ZoneInput = z.infer<typeof ZoneInputSchema>;

export interface Zone {
  apiVersion: 'v1';
  kind: 'Zone';
  metadata: ObjectMeta;
  status: ZoneStatus;
}

/** Annotations the controller sets on every Zone so `sheepctl zones` can explain what it is (not) doing. */
export const ANNOTATION_MASTER_DISRUPTION = 'shepherd.io/master-disruption';
export const ANNOTATION_CIRCUIT_BREAKER = 'shepherd.io/lease-circuit-breaker';
export const ANNOTATION_LEADER = 'shepherd.io/controller-leader';
