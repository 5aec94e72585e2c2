/**
 * The JSON text of the objects one store handed out, so the API can send bytes the store already built instead
 * of serialising the object again (the apiserver's watch cache keeps encoded objects for the same reason).
 * Keyed by object identity: callers treat a store's objects as read-only, and anything built anew simply has
 * no entry and is serialised normally. Each store owns one (no module-level state).
 */
export class EncodedJson {
  /** The text, or null for an object whose text is built on the first request (then kept). */
  readonly #texts = new WeakMap<object, string | null>();

  /** `json` must be exactly `JSON.stringify(obj)` (the text the object was parsed from, or serialised to). */
  record(obj: object, json: string): void {
    this.#texts.set(obj, json);
  }

  /**
   * An object handed out without its text at hand (an etcd value lacks the resourceVersion; a long list drops
   * each row's text once parsed): the text is built once, on the first request, and only if one comes.
   */
  recordLazily(obj: object): void {
    this.#texts.set(obj, null);
  }

  /** `JSON.stringify(obj)` for an object recorded here; undefined for any other. */
  get(obj: unknown): string | undefined {
    if (typeof obj !== 'object' || obj === null) return undefined;
    const text = this.#texts.get(obj);
    if (text !== null) return text;
    const built = JSON.stringify(obj);
    this.#texts.set(obj, built);
    return built;
  }
}
