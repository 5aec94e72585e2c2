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

// The controller's Zone annotations live in zone-annotations.ts (no zod, so the dashboard bundle can use them).
export {
  ANNOTATION_CIRCUIT_BREAKER,
  ANNOTATION_LEADER,
  ANNOTATION_MASTER_DISRUPTION,
  ANNOTATION_SETTINGS,
  ANNOTATION_TAINT_QUEUE,
} from './zone-annotations.js';
