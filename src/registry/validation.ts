import type { z } from 'zod';
import { BadRequestError, InvalidError, type StatusCause } from '../core/errors.js';

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

/** `spec.taints[0].key`: the Kubernetes field-path style used in Status causes. */
export function fieldPath(path: readonly PathKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

export function issuesToCauses(issues: readonly Issue[]): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      // zod reports unknown keys on the parent object; name each one, as Kubernetes' strict decoding does.
      for (const key of issue.keys) {
        causes.push({ field: fieldPath([...issue.path, key]), message: `unknown field "${key}"` });
      }
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      causes.push(...issuesToCauses(issue.errors[0] ?? []));
    } else {
      causes.push({ field: fieldPath(issue.path), message: issue.message });
    }
  }
  return causes;
}

export function invalidError(kind: string, name: string | undefined, causes: StatusCause[]): InvalidError {
  const what = name === undefined || name === '' ? kind : `${kind} "${name}"`;
  const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return new InvalidError(`${what} is invalid: ${summary}`, causes, name === undefined ? { kind } : { kind, name });
}

function bodyName(body: Record<string, unknown>): string | undefined {
  const meta = body['metadata'];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const name = (meta as Record<string, unknown>)['name'];
  return typeof name === 'string' ? name : undefined;
}

export interface ParseOptions {
  /** PUT: metadata.resourceVersion must be present (optimistic locking). */
  update?: boolean;
}

/**
 * Validates a client body against a core input schema, once. Every problem (zod issues and, for updates, a
 * missing resourceVersion) is reported together as one 422 Invalid with `details.causes`.
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  kind: string,
  options?: ParseOptions,
): z.output<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError(`the request body must be a JSON object describing a ${kind}`);
  }
  const result = schema.safeParse(body);
  const causes = result.success ? [] : issuesToCauses(result.error.issues);
  if (options?.update) {
    const meta = (body as Record<string, unknown>)['metadata'];
    const rv =
      typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['resourceVersion'] : undefined;
    if (rv === undefined || rv === '') {
      causes.push({ field: 'metadata.resourceVersion', message: 'must be specified for an update' });
    }
  }
  if (!result.success || causes.length > 0) throw invalidError(kind, bodyName(body as Record<string, unknown>), causes);
  return result.data as z.output<S>;
}

/** The name in the URL must match metadata.name (Kubernetes answers 400 BadRequest). */
export function checkName(kind: string, urlName: string, name: string | undefined): void {
  if (name !== urlName) {
    throw new BadRequestError(
      `the name of the object (${name ?? '<empty>'}) does not match the name on the URL (${urlName}): send the ${kind} to its own URL`,
    );
  }
}
