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
 * that were sent when the object was new (BENCHMARKS.md §24). The object holds its text through a small holder,
 * and the ring holds the holders, not the objects: it keeps no object alive, and pushing a holder out empties it
 * wherever its object is. (A ring of WeakRefs to the objects did the same at 4.2 µs a record against 1.3, twice
 * per renewal, and gave every garbage collection weak references to process: BENCHMARKS.md §26.) The price: a text
 * stays until it is pushed out even if its object died first, so at most `keptTexts` texts are held, as the bound
 * says.
 */
export class EncodedJson {
  /** The object's holder, or null for an object whose text is built on the first request (then kept). */
  readonly #key = Symbol('shepherd.encodedJson');
  readonly #ring: Array<Holder | undefined>;
  #next = 0;

  constructor(keptTexts = DEFAULT_KEPT_TEXTS) {
    this.#ring = new Array<Holder | undefined>(Math.max(1, keptTexts)).fill(undefined);
  }

  /** `json` must be exactly `JSON.stringify(obj)` (the text the object was parsed from, or serialised to). */
  record(obj: object, json: string): void {
    this.#set(obj, this.#keep(json));
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
    const holder = (obj as Record<symbol, Holder | null | undefined>)[this.#key];
    if (holder !== null) return holder?.text;
    const built = JSON.stringify(obj);
    this.#set(obj, this.#keep(built));
    return built;
  }

  /** Non-enumerable, so copies, comparisons and JSON.stringify never see it. */
  #set(obj: object, holder: Holder | null): void {
    Object.defineProperty(obj, this.#key, { value: holder, writable: true, configurable: true, enumerable: false });
  }

  /** A holder for `text` in the ring's oldest slot, emptying the holder that had it. */
  #keep(text: string): Holder {
    const evicted = this.#ring[this.#next];
    if (evicted !== undefined) evicted.text = undefined;
    const holder: Holder = { text };
    this.#ring[this.#next] = holder;
    this.#next = (this.#next + 1) % this.#ring.length;
    return holder;
  }
}

/** What an object holds its text through: emptied when the ring pushes it out. */
interface Holder {
  text: string | undefined;
}
