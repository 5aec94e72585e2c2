import { z } from 'zod';
import { ObjectMetaNameOptionalSchema, TimeSchema, type ObjectMeta } from './meta.js';

export const EventTypeSchema = z.enum(['Normal', 'Warning']);
export type EventType = z.infer<typeof EventTypeSchema>;

export const InvolvedObjectSchema = z.strictObject({
  kind: z.string().min(1).max(63),
  name: z.string().min(1).max(253),
  uid: z.string().optional(),
});

export const EventInputSchema = z.strictObject({
  apiVersion: z.literal('v1').optional(),
  kind: z.literal('Event').optional(),
  metadata: ObjectMetaNameOptionalSchema.optional(),
  type: EventTypeSchema,
  reason: z.string().min(1).max(128),
  message: z.string().max(1024),
  involvedObject: InvolvedObjectSchema,
  source: z.strictObject({ component: z.string().min(1).max(253), host: z.string().max(253).optional() }),
  count: z.number().int().min(1).optional(),
  firstTimestamp: TimeSchema.optional(),
  lastTimestamp: TimeSchema.optional(),
});
export type EventInput = z.infer<typeof EventInputSchema>;

export interface Event {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: ObjectMeta;
  type: EventType;
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string; uid?: string };
  source: { component: string; host?: string };
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
}

/** Repeats of the same (involvedObject, reason, type, message) within this window fold into one Event. */
export const EVENT_FOLD_WINDOW_MS = 10 * 60_000;
