import type { ObjectCache } from '../../src/client/object-cache.js';

type Meta = { metadata: { name: string; namespace?: string; resourceVersion: string } };

/** An ObjectCache the test fills by hand (the informer's contract without the network). */
export class FakeCache<T extends Meta> implements ObjectCache<T> {
  readonly #items = new Map<string, T>();
  #rv = '';
  synced = true;

  constructor(
    readonly keyOf: (obj: T) => string = (o) =>
      o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name,
  ) {}

  get(key: string): T | undefined {
    const o = this.#items.get(key);
    return o === undefined ? undefined : structuredClone(o);
  }
  list(): T[] {
    return [...this.#items.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => structuredClone(o));
  }
  /** ObjectCache's read-only view; copies as `list()` does (a test may replace `list`). */
  sortedView(): readonly T[] {
    return this.list();
  }
  lastSyncResourceVersion(): string {
    return this.#rv;
  }
  hasSynced(): boolean {
    return this.synced;
  }
  /** Stores the object and advances the cache revision to its resourceVersion (as a watch event would). */
  set(obj: T): void {
    this.#items.set(this.keyOf(obj), structuredClone(obj));
    this.advance(obj.metadata.resourceVersion);
  }
  remove(key: string, rv?: string): void {
    this.#items.delete(key);
    if (rv !== undefined) this.advance(rv);
  }
  /** A bookmark: the cache has seen everything up to rv. */
  advance(rv: string): void {
    if (this.#rv === '' || Number(rv) > Number(this.#rv)) this.#rv = rv;
  }
}
