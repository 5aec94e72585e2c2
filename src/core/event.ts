import { z } from 'zod';
import {
  MAX_EVENT_MESSAGE_CHARS,
  MAX_KIND_CHARS,
  MAX_NAME_CHARS,
  MAX_REASON_CHARS,
  MAX_SHORT_TEXT_CHARS,
  MAX_UID_CHARS,
} from './limits.js';
import { ObjectMetaNameOptionalSchema, TimeSchema, type ObjectMeta } from './meta.js';

export const EventTypeSchema = z.enum(['Normal', 'Warning']);
export type EventType = z.infer<typeof EventTypeSchema>;

export const InvolvedObjectSchema = z.strictObject({
  kind: z.string().min(1).max(MAX_KIND_CHARS),
  name: z.string().min(1).max(MAX_NAME_CHARS),
  /** The namespace of a namespaced object (a Pod, a Deployment); absent for a Node or a Zone. */
  namespace: z.string().min(1).max(MAX_KIND_CHARS).optional(),
  uid: z.string().max(MAX_UID_CHARS).optional(),
});

export const EventInputSchema = z.strictObject({
  apiVersion: z.literal('v1').optional(),
  kind: z.literal('Event').optional(),
  metadata: ObjectMetaNameOptionalSchema.optional(),
  type: EventTypeSchema,
  reason: z.string().min(1).max(MAX_REASON_CHARS),
  message: z.string().max(MAX_EVENT_MESSAGE_CHARS),
  involvedObject: InvolvedObjectSchema,
  source: z.strictObject({
    component: z.string().min(1).max(MAX_SHORT_TEXT_CHARS),
    host: z.string().max(MAX_SHORT_TEXT_CHARS).optional(),
  }),
  count: z.number().int().min(1).max(2_147_483_647).optional(),
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
  involvedObject: { kind: string; name: string; namespace?: string; uid?: string };
  source: { component: string; host?: string };
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
}

/** Repeats of the same (involvedObject, reason, type, message) within this window fold into one Event. */
export const EVENT_FOLD_WINDOW_MS = 10 * 60_000;
