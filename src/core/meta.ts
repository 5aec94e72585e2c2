import { z } from 'zod';

/** Lowercase RFC 1123 subdomain (API.md): [a-z0-9]([-a-z0-9.]*[a-z0-9])?, at most 253 characters. */
export const NAME_RE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const LABEL_NAME_RE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** RFC 3339 with a time zone; fractional seconds allowed (Lease times may carry microseconds). */
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export const MAX_LABELS = 64;
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;

export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 253) return 'must be no more than 253 characters';
  if (!NAME_RE.test(name)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Kubernetes qualified-name rules for label and annotation keys. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined) {
    if (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN_RE.test(prefix)) {
      return 'prefix part must be a lowercase DNS subdomain of at most 253 characters';
    }
  }
  if (name.length === 0 || name.length > 63 || !LABEL_NAME_RE.test(name)) {
    return "name part must be 1-63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63 || !LABEL_NAME_RE.test(value)) {
    return "must be at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";
  }
  return undefined;
}

export const TimeSchema = z.string().refine((s) => RFC3339_RE.test(s) && !Number.isNaN(Date.parse(s)), {
  message: 'must be an RFC 3339 time such as 2026-11-29T18:33:04.123Z',
});

export const NameSchema = z.string().superRefine((s, ctx) => {
  const p = nameProblem(s);
  if (p) ctx.addIssue({ code: 'custom', message: p });
});

const LabelsSchema = z.record(z.string(), z.string()).superRefine((labels, ctx) => {
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

const AnnotationsSchema = z.record(z.string(), z.string()).superRefine((ann, ctx) => {
  let size = 0;
  for (const [k, v] of Object.entries(ann)) {
    size += k.length + v.length;
    const kp = labelKeyProblem(k);
    if (kp) ctx.addIssue({ code: 'custom', path: [k], message: `invalid annotation key "${k}": ${kp}` });
  }
  if (size > MAX_ANNOTATIONS_BYTES) {
    ctx.addIssue({ code: 'custom', message: `annotations must total at most ${MAX_ANNOTATIONS_BYTES} bytes` });
  }
});

/** Object metadata as clients send it: server-set fields are accepted (and overwritten or checked), never required. */
export const ObjectMetaSchema = z.strictObject({
  name: NameSchema,
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  creationTimestamp: TimeSchema.optional(),
  labels: LabelsSchema.optional(),
  annotations: AnnotationsSchema.optional(),
});

/** Metadata for create requests where the server may pick the name (Events). */
export const ObjectMetaNameOptionalSchema = ObjectMetaSchema.extend({ name: NameSchema.optional() });

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
