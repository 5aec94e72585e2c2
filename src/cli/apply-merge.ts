import { isDeepStrictEqual } from 'node:util';
import { MAX_ANNOTATIONS_BYTES, utf8Bytes } from '../core/limits.js';

/**
 * The annotation `apply` (and `create`, as `kubectl create --save-config`) keeps the applied manifest in, as
 * kubectl keeps `kubectl.kubernetes.io/last-applied-configuration`: the third side of the merge below.
 */
export const LAST_APPLIED_ANNOTATION = 'shepherd.io/last-applied-configuration';

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * kubectl apply's three-way merge, reduced to plain JSON (no strategic merge keys): `desired` is the manifest,
 * `last` the manifest applied before (undefined when the object was never applied), `current` the stored value.
 * - A field the manifest did not change since the last apply keeps its stored value, so what the server or
 *   another client set there stays (`sheepctl scale`'s replicas, the pod tolerations the server adds).
 * - A field the manifest changed takes the manifest's value; objects merge key by key; lists are replaced whole.
 * - A field the last manifest had and this one drops is removed.
 * - A nested object whose `type` changes is replaced whole (changesType).
 * Without a last manifest, a stored list that begins with the manifest's list is kept (the server appends to
 * some lists, such as the default tolerations of a pod).
 */
export function mergeApplied(current: unknown, last: unknown, desired: unknown, depth = 0): unknown {
  if (last !== undefined && isDeepStrictEqual(desired, last)) return current === undefined ? desired : current;
  if (isRecord(desired) && isRecord(current) && !(depth > 0 && changesType(current, desired))) {
    const out: Json = { ...current };
    const lastRecord = isRecord(last) ? last : undefined;
    for (const [key, value] of Object.entries(desired)) {
      out[key] = mergeApplied(current[key], lastRecord?.[key], value, depth + 1);
    }
    for (const key of Object.keys(lastRecord ?? {})) if (!(key in desired)) delete out[key];
    return out;
  }
  if (last === undefined && Array.isArray(desired) && Array.isArray(current) && startsWith(current, desired)) {
    return current;
  }
  return desired;
}

/**
 * A nested object whose `type` the manifest changes is replaced whole, as Kubernetes' retainKeys patch strategy
 * replaces a Deployment's `strategy`: the fields of the old type (RollingUpdate's `rollingUpdate`) do not belong
 * to the new one (Recreate).
 */
function changesType(current: Json, desired: Json): boolean {
  return typeof desired['type'] === 'string' && desired['type'] !== current['type'];
}

function startsWith(list: unknown[], prefix: unknown[]): boolean {
  return prefix.length <= list.length && prefix.every((v, i) => isDeepStrictEqual(v, list[i]));
}

/** The parts of an object `apply` owns: labels, annotations, and every top-level field but metadata and status. */
export function appliedPart(obj: Json): Json {
  const metadata = isRecord(obj['metadata']) ? obj['metadata'] : {};
  const out: Json = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata' && key !== 'status') out[key] = value;
  }
  const meta: Json = {};
  if (metadata['labels'] !== undefined) meta['labels'] = metadata['labels'];
  if (metadata['annotations'] !== undefined) meta['annotations'] = metadata['annotations'];
  out['metadata'] = meta;
  return out;
}

/** The manifest as the annotation records it: compact JSON of apiVersion, kind, name, namespace and the applied part. */
export function lastAppliedText(manifest: Json): string {
  const source = isRecord(manifest['metadata']) ? manifest['metadata'] : {};
  const { metadata, ...fields } = appliedPart(manifest);
  const meta: Json = { name: source['name'] };
  if (source['namespace'] !== undefined) meta['namespace'] = source['namespace'];
  Object.assign(meta, metadata);
  if (isRecord(meta['annotations'])) {
    const { [LAST_APPLIED_ANNOTATION]: _own, ...annotations } = meta['annotations'];
    if (Object.keys(annotations).length > 0) meta['annotations'] = annotations;
    else delete meta['annotations'];
  }
  return JSON.stringify({ apiVersion: manifest['apiVersion'], kind: manifest['kind'], metadata: meta, ...fields });
}

/** The manifest with the annotation set: the body of a create, and the desired side of an apply. */
export function withLastApplied(manifest: Json): Json {
  const metadata = isRecord(manifest['metadata']) ? manifest['metadata'] : {};
  const annotations = isRecord(metadata['annotations']) ? metadata['annotations'] : {};
  return {
    ...manifest,
    metadata: { ...metadata, annotations: { ...annotations, [LAST_APPLIED_ANNOTATION]: lastAppliedText(manifest) } },
  };
}

/**
 * The UTF-8 bytes the manifest's annotations take with the last-applied record among them: the server refuses an
 * object whose annotations (keys and values) exceed MAX_ANNOTATIONS_BYTES.
 */
export function annotationBytesWithLastApplied(manifest: Json): number {
  const annotations = (withLastApplied(manifest)['metadata'] as Json)['annotations'] as Record<string, string>;
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += utf8Bytes(k) + utf8Bytes(String(v));
  return size;
}

/** Whether the last-applied record fits beside the manifest's own annotations. */
export function lastAppliedFits(manifest: Json): boolean {
  return annotationBytesWithLastApplied(manifest) <= MAX_ANNOTATIONS_BYTES;
}

/** The last applied manifest recorded on a stored object, or undefined (never applied, or unreadable). */
export function lastApplied(current: Json): Json | undefined {
  const metadata = isRecord(current['metadata']) ? current['metadata'] : {};
  const text = isRecord(metadata['annotations']) ? metadata['annotations'][LAST_APPLIED_ANNOTATION] : undefined;
  if (typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The object an apply stores: the current one (its resourceVersion, status and server-set metadata kept) with
 * the applied part merged. Deep-equal to `current` when the apply changes nothing.
 */
export function appliedObject(current: Json, manifest: Json): Json {
  const last = lastApplied(current);
  const merged = mergeApplied(
    appliedPart(current),
    last === undefined ? undefined : appliedPart(last),
    appliedPart(withLastApplied(manifest)),
  ) as Json;
  const { metadata, ...fields } = merged;
  const meta = { ...(current['metadata'] as Json) };
  for (const key of ['labels', 'annotations'] as const) {
    const value = (metadata as Json)[key];
    if (value === undefined) delete meta[key];
    else meta[key] = value;
  }
  const out: Json = { ...current, ...fields, metadata: meta };
  // A top-level field the last manifest had and this one dropped is gone from `merged`: drop it here too.
  for (const key of Object.keys(current)) {
    if (!(key in merged) && key !== 'apiVersion' && key !== 'kind' && key !== 'status') delete out[key];
  }
  return out;
}
