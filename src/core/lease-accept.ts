import { intIn, isPlain, only, stringUpTo, time, type Plain } from './accept-checks.js';
import type { LeaseInput } from './lease-schema.js';
import { MAX_KIND_CHARS, MAX_NAME_CHARS, MAX_UID_CHARS } from './limits.js';
import { nameProblem } from './names.js';

/*
 * The lease renewal's fast accept path: a hand-written check of the common body (every agent sends one every few
 * seconds) that answers exactly what `LeaseInputSchema.safeParse(body).data` would, keys in the schema's order, or
 * undefined for anything it does not recognise; the registry then runs the schema, which accepts or explains. It
 * accepts a strict subset of what the schema accepts (no labels or annotations, no key present as undefined, plain
 * objects only), so the schema stays the one owner of the rules and of every error message; a property test holds
 * the two together (test/core/lease-accept.test.ts). zod's parse of this body cost ~5 µs per renewal.
 */

const BODY_KEYS = new Set(['apiVersion', 'kind', 'metadata', 'spec']);
const META_KEYS = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']);
const SPEC_KEYS = new Set(['holderIdentity', 'leaseDurationSeconds', 'acquireTime', 'renewTime', 'leaseTransitions']);

/**
 * The schema's output for a plain Lease body, or undefined to let the schema judge it. With `update`, a body
 * without a resourceVersion is left to the schema's caller too (it reports that with the other problems).
 */
export function acceptLeaseInput(body: unknown, options: { update?: boolean } = {}): LeaseInput | undefined {
  if (!isPlain(body) || !only(body, BODY_KEYS)) return undefined;
  const { apiVersion, kind, metadata: m, spec: s } = body;
  if ((apiVersion !== undefined && apiVersion !== 'coordination/v1') || (kind !== undefined && kind !== 'Lease')) {
    return undefined;
  }
  if (!isPlain(m) || !only(m, META_KEYS) || !isPlain(s) || !only(s, SPEC_KEYS)) return undefined;
  if (typeof m['name'] !== 'string' || nameProblem(m['name']) !== undefined) return undefined;
  for (const [k, max] of [
    ['namespace', MAX_KIND_CHARS],
    ['uid', MAX_UID_CHARS],
    ['resourceVersion', MAX_UID_CHARS],
  ] as const) {
    if (k in m && !stringUpTo(m[k], max)) return undefined;
  }
  if (options.update === true && (m['resourceVersion'] === undefined || m['resourceVersion'] === '')) return undefined;
  if ('creationTimestamp' in m && !time(m['creationTimestamp'])) return undefined;
  const holder = s['holderIdentity'];
  if (typeof holder !== 'string' || holder.length < 1 || holder.length > MAX_NAME_CHARS) return undefined;
  if (!intIn(s['leaseDurationSeconds'], 1, 86_400) || !time(s['renewTime'])) return undefined;
  if ('acquireTime' in s && !time(s['acquireTime'])) return undefined;
  if ('leaseTransitions' in s && !intIn(s['leaseTransitions'], 0, Number.MAX_SAFE_INTEGER)) return undefined;
  // The schema's output: a new object per level, keys in the schema's order, only those given.
  const metadata: Plain = { name: m['name'] };
  for (const k of ['namespace', 'uid', 'resourceVersion', 'creationTimestamp']) if (k in m) metadata[k] = m[k];
  const spec: Plain = { holderIdentity: holder, leaseDurationSeconds: s['leaseDurationSeconds'] };
  if ('acquireTime' in s) spec['acquireTime'] = s['acquireTime'];
  spec['renewTime'] = s['renewTime'];
  if ('leaseTransitions' in s) spec['leaseTransitions'] = s['leaseTransitions'];
  const out: Plain = {};
  if (apiVersion !== undefined) out['apiVersion'] = apiVersion;
  if (kind !== undefined) out['kind'] = kind;
  out['metadata'] = metadata;
  out['spec'] = spec;
  return out as unknown as LeaseInput;
}
