/**
 * The JSON text of the objects one store handed out, so the API can send bytes the store already built instead
 * of serialising the object again (the apiserver's watch cache keeps encoded objects for the same reason).
 * Kept on the object itself, under a symbol of this instance, non-enumerable: JSON.stringify, spreads,
 * Object.assign, structuredClone and deep equality all ignore it, so a copy (or anything built anew) has no text
 * and is serialised normally. Callers treat a store's objects as read-only. A WeakMap did the same at twice the
 * cost per object and made every garbage collection walk its hundreds of thousands of entries (BENCHMARKS.md §21).
 */
export class EncodedJson {
  /** The text, or null for an object whose text is built on the first request (then kept). */
  readonly #key = Symbol('shepherd.encodedJson');

  /** `json` must be exactly `JSON.stringify(obj)` (the text the object was parsed from, or serialised to). */
  record(obj: object, json: string): void {
    this.#set(obj, json);
  }

  /**
   * An object handed out without its text at hand (an etcd value lacks the resourceVersion; a long list drops
   * each row's text once parsed): the text is built once, on the first request, and only if one comes.
   */
  recordLazily(obj: object): void {
    this.#set(obj, null);
  }

  /** `JSON.stringify(obj)` for an object recorded here; undefined for any other. */
  get(obj: unknown): string | undefined {
    if (typeof obj !== 'object' || obj === null) return undefined;
    const text = (obj as Record<symbol, string | null | undefined>)[this.#key];
    if (text !== null) return text;
    const built = JSON.stringify(obj);
    this.#set(obj, built);
    return built;
  }

  #set(obj: object, text: string | null): void {
    Object.defineProperty(obj, this.#key, { value: text, writable: true, configurable: true, enumerable: false });
  }
}
