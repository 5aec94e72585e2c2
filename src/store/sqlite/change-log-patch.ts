import type { AnyObject } from '../../core/kinds.js';

/*
 * The change log's deltas (change-log.ts): a patch is the list of operations taking an object's last full record to
 * its new state, as JSON text. Each operation sets a path to a value or deletes it; arrays and scalars are replaced
 * whole; `metadata.resourceVersion` is never in a patch (a record's revision is its own). The patch text is part of
 * the published segment format: its shape never changes.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
/** Set `path` to a value, or (one element) delete `path`. */
type PatchOp = [path: string[], value: Json] | [path: string[]];

function isObject(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Appends to `out` the ops taking `a` to `b`. `path` is one stack shared by the whole walk and copied only into an
 * op (a renewal visits a dozen keys and emits one op: nothing is allocated for the keys that are equal).
 * `metadata.resourceVersion` is skipped on both sides: a record's revision is its own.
 */
function diffInto(a: Json, b: Json, path: string[], out: PatchOp[]): void {
  if (isObject(a) && isObject(b)) {
    const skipRevision = path.length === 1 && path[0] === 'metadata';
    for (const k in a) {
      if (skipRevision && k === 'resourceVersion') continue;
      if (!Object.hasOwn(b, k)) out.push([[...path, k]]);
    }
    for (const k in b) {
      if (skipRevision && k === 'resourceVersion') continue;
      const bv = b[k] as Json;
      path.push(k);
      if (Object.hasOwn(a, k)) diffInto(a[k] as Json, bv, path, out);
      else out.push([[...path], bv]);
      path.pop();
    }
    return;
  }
  // Arrays and scalars are replaced whole.
  if (!sameJson(a, b)) out.push([[...path], b]);
}

/** The patch taking `base` to `next`, ignoring resourceVersion, as JSON text. */
export function diffObjects(base: AnyObject, next: AnyObject): string {
  const out: PatchOp[] = [];
  diffInto(base as unknown as Json, next as unknown as Json, [], out);
  return JSON.stringify(out);
}

/** `base` (JSON text of a full record) with `patch` applied and resourceVersion set to `revision`. */
export function applyPatch(baseJson: string, patch: string, revision: number): AnyObject {
  let root = JSON.parse(baseJson) as Json;
  for (const op of JSON.parse(patch) as PatchOp[]) {
    const [path] = op;
    if (path.length === 0) {
      if (op.length === 2) root = op[1];
      continue;
    }
    let parent = root;
    for (const k of path.slice(0, -1)) {
      if (!isObject(parent)) throw new Error(`change-log delta does not fit its base at ${path.join('.')}`);
      parent = parent[k] as Json;
    }
    if (!isObject(parent)) throw new Error(`change-log delta does not fit its base at ${path.join('.')}`);
    const last = path[path.length - 1] as string;
    if (op.length === 2)
      Object.defineProperty(parent, last, { value: op[1], enumerable: true, writable: true, configurable: true });
    else delete parent[last];
  }
  const obj = root as unknown as AnyObject;
  obj.metadata.resourceVersion = String(revision);
  return obj;
}
