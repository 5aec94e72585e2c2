import { isApiTime } from './clock.js';

/*
 * What the hand-written accept paths (lease-accept.ts, node-accept.ts) share. Each path answers exactly what its zod
 * schema would output for the bodies it knows, or undefined for anything else, so the schema stays the one owner of
 * the rules and of every error message. Each check here is at least as strict as the schema rule it stands for.
 */

export type Plain = Record<string, unknown>;

export function isPlain(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/** Every own key is one of `keys`, none holds undefined, and no key is inherited. */
export function only(obj: Plain, keys: ReadonlySet<string>): boolean {
  for (const k in obj) if (!Object.hasOwn(obj, k) || !keys.has(k) || obj[k] === undefined) return false;
  return true;
}

export function stringUpTo(v: unknown, max: number): v is string {
  return typeof v === 'string' && v.length <= max;
}

export function intIn(v: unknown, min: number, max: number): v is number {
  return Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
}

export function time(v: unknown): v is string {
  return typeof v === 'string' && isApiTime(v);
}
