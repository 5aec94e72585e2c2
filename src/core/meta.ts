import { z } from 'zod';
import { isApiTime } from './clock.js';
import { MAX_ANNOTATIONS_BYTES, MAX_KIND_CHARS, MAX_LABELS, MAX_UID_CHARS, utf8Bytes } from './limits.js';
import { labelKeyProblem, labelValueProblem, nameProblem } from './names.js';

export const TimeSchema = z.string().refine(isApiTime, {
  message: 'must be an RFC 3339 time such as 2026-11-29T18:33:04.123Z',
});

export const NameSchema = z.string().superRefine((s, ctx) => {
  const p = nameProblem(s);
  if (p) ctx.addIssue({ code: 'custom', message: p });
});

export const LabelsSchema = z.record(z.string(), z.string()).superRefine((labels, ctx) => {
  const keys = Object.keys(labels);
  if (keys.length > MAX_LABELS) {
    ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_LABELS} labels` });
  }
  for (const k of keys) {
    const kp = labelKeyProblem(k);
    if (kp) ctx.addIssue({ code: 'custom', path: [k], message: `invalid label key "${k}": ${kp}` });
    const vp = labelValueProblem(labels[k] as string);
    if (vp) ctx.addIssue({ code: 'custom', path: [k], message: `invalid label value "${labels[k]}": ${vp}` });
  }
});

export const AnnotationsSchema = z.record(z.string(), z.string()).superRefine((ann, ctx) => {
  let size = 0;
  for (const [k, v] of Object.entries(ann)) {
    size += utf8Bytes(k) + utf8Bytes(v);
    const kp = labelKeyProblem(k);
    if (kp) ctx.addIssue({ code: 'custom', path: [k], message: `invalid annotation key "${k}": ${kp}` });
  }
  if (size > MAX_ANNOTATIONS_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `annotations must total at most ${MAX_ANNOTATIONS_BYTES} bytes (keys and values, UTF-8), not ${size}`,
    });
  }
});

/** Object metadata as clients send it: server-set fields are accepted (and overwritten or checked), never required. */
export const ObjectMetaSchema = z.strictObject({
  name: NameSchema,
  namespace: z.string().max(MAX_KIND_CHARS).optional(),
  uid: z.string().max(MAX_UID_CHARS).optional(),
  resourceVersion: z.string().max(MAX_UID_CHARS).optional(),
  creationTimestamp: TimeSchema.optional(),
  labels: LabelsSchema.optional(),
  annotations: AnnotationsSchema.optional(),
});

/** Metadata for create requests where the server may pick the name (Events). */
export const ObjectMetaNameOptionalSchema = ObjectMetaSchema.extend({ name: NameSchema.optional() });

/** A reference from an object to the object that owns it (a Pod to its Deployment): deleting the owner cascades. */
export const OwnerReferenceSchema = z.strictObject({
  apiVersion: z.string().min(1).max(MAX_KIND_CHARS),
  kind: z.string().min(1).max(MAX_KIND_CHARS),
  name: NameSchema,
  uid: z.string().min(1).max(MAX_UID_CHARS),
  controller: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof OwnerReferenceSchema>;

/**
 * Metadata of workload objects (Pods, Deployments): owner references, and the server-set generation and graceful
 * deletion fields, which clients may echo back but never set (the registry keeps the stored values).
 */
export const WorkloadMetaSchema = ObjectMetaSchema.extend({
  ownerReferences: z.array(OwnerReferenceSchema).max(8).optional(),
  generation: z.number().int().nonnegative().optional(),
  deletionTimestamp: TimeSchema.optional(),
  deletionGracePeriodSeconds: z.number().int().nonnegative().optional(),
});

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Workload objects only: the owners (a Pod's Deployment). */
  ownerReferences?: OwnerReference[];
  /** Workload objects only: bumped by the server on every spec change (Deployment status.observedGeneration). */
  generation?: number;
  /** Pods only: set by a graceful DELETE; the node's agent stops the pod, then removes the object. */
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
}
