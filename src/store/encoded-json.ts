/** Texts an EncodedJson keeps at once by default: the newest recorded, whatever holds their objects. */
export const DEFAULT_KEPT_TEXTS = 16_384;

/**
 * The JSON text of the objects one store handed out, so the API can send bytes the store already built instead
 * of serialising the object again (the apiserver's watch cache keeps encoded objects for the same reason).
 * Kept on the object itself, under a symbol of this instance, non-enumerable: JSON.stringify, spreads,
 * Object.assign, structuredClone and deep equality all ignore it, so a copy (or anything built anew) has no text
 * and is serialised normally. Callers treat a store's objects as read-only. A WeakMap did the same at twice the
 * cost per object and made every garbage collection walk its hundreds of thousands of entries (BENCHMARKS.md §21).
 *
 * Only the newest `keptTexts` texts stay: an older one is dropped from its object, which then serialises normally.
 * Without the bound, every object an in-process informer keeps (every node and lease of the fleet, each written
 * once) carried its text for as long as the cache held it: 1.4 KB a node, 140 MB at 100,000 nodes, for bytes
 * that were sent when the object was new (BENCHMARKS.md §24). The ring holds its objects weakly, so it keeps none
 * of them alive.
 */
export class EncodedJson {
  /** The text, or null for an object whose text is built on the first request (then kept). */
  readonly #key = Symbol('shepherd.encodedJson');
  readonly #ring: Array<WeakRef<object> | undefined>;
  #next = 0;

  constructor(keptTexts = DEFAULT_KEPT_TEXTS) {
    this.#ring = new Array<WeakRef<object> | undefined>(Math.max(1, keptTexts)).fill(undefined);
  }

  /** `json` must be exactly `JSON.stringify(obj)` (the text the object was parsed from, or serialised to). */
  record(obj: object, json: string): void {
    this.#set(obj, json);
    this.#keep(obj);
  }

  /**
   * An object handed out without its text at hand (an etcd value lacks the resourceVersion; a long list drops
   * each row's text once parsed): the text is built once, on the first request, and only if one comes.
   */
  recordLazily(obj: object): void {
    this.#set(obj, null);
  }

  /** `JSON.stringify(obj)` for an object recorded here whose text is kept; undefined for any other. */
  get(obj: unknown): string | undefined {
    if (typeof obj !== 'object' || obj === null) return undefined;
    const text = (obj as Record<symbol, string | null | undefined>)[this.#key];
    if (text !== null) return text;
    const built = JSON.stringify(obj);
    this.#set(obj, built);
    this.#keep(obj);
    return built;
  }

  #set(obj: object, text: string | null): void {
    Object.defineProperty(obj, this.#key, { value: text, writable: true, configurable: true, enumerable: false });
  }

  /** Takes the oldest slot of the ring, dropping the text of the object that held it (if still alive). */
  #keep(obj: object): void {
    const evicted = this.#ring[this.#next]?.deref();
    // Writable and non-enumerable already: a plain store keeps it so.
    if (evicted !== undefined && evicted !== obj) (evicted as Record<symbol, undefined>)[this.#key] = undefined;
    this.#ring[this.#next] = new WeakRef(obj);
    this.#next = (this.#next + 1) % this.#ring.length;
  }
}
