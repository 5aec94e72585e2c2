import type { ObjectCache } from '../../src/client/object-cache.js';

type Meta = { metadata: { name: string; namespace?: string; resourceVersion: string } };

/**
 * An ObjectCache the test fills by hand, sharing objects the way the Informer (src/client/informer.ts) does:
 * `get`, `list` and `sortedView` hand out the stored object itself, the same one until a change replaces it
 * with a new object, so code that remembers "the object I judged last time" and compares identities sees
 * exactly what it would see in production. `sortedView` is patched in place when an object changes and rebuilt
 * after an add or a delete, as the informer's is. Treat what it hands out as read-only, as with the informer.
 */
export class FakeCache<T extends Meta> implements ObjectCache<T> {
  readonly #items = new Map<string, T>();
  #sorted: { keys: string[]; objects: T[] } | undefined;
  #rv = '';
  synced = true;

  constructor(
    readonly keyOf: (obj: T) => string = (o) =>
      o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name,
  ) {}

  get(key: string): T | undefined {
    return this.#items.get(key);
  }
  list(): T[] {
    return this.sortedView().slice();
  }
  sortedView(): readonly T[] {
    if (this.#sorted === undefined) {
      const keys = [...this.#items.keys()].sort();
      this.#sorted = { keys, objects: keys.map((k) => this.#items.get(k) as T) };
    }
    return this.#sorted.objects;
  }
  lastSyncResourceVersion(): string {
    return this.#rv;
  }
  hasSynced(): boolean {
    return this.synced;
  }
  /**
   * Stores obj itself (the caller hands over a fresh object per change, as a watch event is) and advances the
   * cache revision to its resourceVersion.
   */
  set(obj: T): void {
    const key = this.keyOf(obj);
    const replaced = this.#items.has(key);
    this.#items.set(key, obj);
    const i = replaced && this.#sorted ? this.#sorted.keys.indexOf(key) : -1;
    if (i >= 0) (this.#sorted as { objects: T[] }).objects[i] = obj;
    else this.#sorted = undefined;
    this.advance(obj.metadata.resourceVersion);
  }
  remove(key: string, rv?: string): void {
    if (this.#items.delete(key)) this.#sorted = undefined;
    if (rv !== undefined) this.advance(rv);
  }
  /** A bookmark: the cache has seen everything up to rv. */
  advance(rv: string): void {
    if (this.#rv === '' || Number(rv) > Number(this.#rv)) this.#rv = rv;
  }
}
