/**
 * The JSON text a store already produced for an object it returned, so the API can send those bytes instead of
 * serialising the object again (the apiserver's watch cache keeps encoded objects for the same reason).
 * Keyed by object identity: a store registers only objects it hands out fresh, and callers treat returned
 * objects as read-only; anything that builds a new object simply has no entry and is serialised normally.
 */
const encoded = new WeakMap<object, string>();

export function rememberJson(obj: object, json: string): void {
  encoded.set(obj, json);
}

/** The JSON text `JSON.stringify(obj)` would produce, when a store recorded it; undefined otherwise. */
export function encodedJson(obj: unknown): string | undefined {
  return typeof obj === 'object' && obj !== null ? encoded.get(obj) : undefined;
}
