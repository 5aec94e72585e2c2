/**
 * The stored JSON of recently written objects, so a GET (and the read an optimistic-locking replace does
 * before every lease renewal) skips the SQLite lookup. It is exact, not a guess: this process is the only
 * writer and the store updates it in the same synchronous step as the commit. Bounded by entry count and by
 * bytes (objects may carry 64 KiB of annotations: a count alone would let 20,000 of them take over a gigabyte),
 * oldest write evicted first (a renewal rewrites its entry and moves it to the back), and it holds strings, not
 * parsed objects, so every get still returns a fresh object the caller may keep or change.
 */
interface Entry<V> {
  readonly resource: string;
  readonly key: string;
  value: V;
  size: number;
  /** Written before this one (toward the oldest). */
  older: Entry<V> | undefined;
  /** Written after this one (toward the newest). */
  newer: Entry<V> | undefined;
}

export class RecentObjects<V = string> {
  /**
   * The entries by key, and in write order through their links. A rewrite (the renewal's case) moves its entry to
   * the newest end in place: the Map sees no delete and no insert. Delete-then-set on a Map of 100,000+ keys (as
   * this cache did) fills its table with holes, and the rehash that clears them copies every entry in one step
   * (tens of ms at 150,000 entries, on the event loop, every few seconds under a large fleet's renewals).
   * One Map per resource, keyed by the caller's own key string: a key joined to its resource on every lookup was a
   * new string to flatten and hash each time (~5 µs a renewal across the store's two caches).
   */
  readonly #maps = new Map<string, Map<string, Entry<V>>>();
  #size = 0;
  readonly #capacity: number;
  readonly #maxBytes: number;
  readonly #sizeOf: (value: V) => number;
  #bytes = 0;
  #oldest: Entry<V> | undefined;
  #newest: Entry<V> | undefined;

  /** `maxBytes` 0: no byte bound. `sizeOf`: what one value costs (for JSON text, its length). */
  constructor(capacity: number, maxBytes = 0, sizeOf: (value: V) => number = () => 0) {
    this.#capacity = capacity;
    this.#maxBytes = maxBytes;
    this.#sizeOf = sizeOf;
  }

  get size(): number {
    return this.#size;
  }

  /** What the entries cost now, by `sizeOf`. */
  get bytes(): number {
    return this.#bytes;
  }

  get(resource: string, key: string): V | undefined {
    return this.#maps.get(resource)?.get(key)?.value;
  }

  set(resource: string, key: string, value: V): void {
    if (this.#capacity <= 0) return;
    const size = this.#sizeOf(value);
    let map = this.#maps.get(resource);
    if (map === undefined) {
      map = new Map();
      this.#maps.set(resource, map);
    }
    const entry = map.get(key);
    // One value larger than the whole budget is not kept (it would evict everything else).
    if (this.#maxBytes > 0 && size > this.#maxBytes) {
      if (entry !== undefined) this.#remove(entry);
      return;
    }
    if (entry !== undefined) {
      this.#bytes += size - entry.size;
      entry.value = value;
      entry.size = size;
      this.#unlink(entry);
      this.#link(entry);
    } else {
      const added: Entry<V> = { resource, key, value, size, older: undefined, newer: undefined };
      map.set(key, added);
      this.#size++;
      this.#bytes += size;
      this.#link(added);
    }
    while (this.#size > this.#capacity || (this.#maxBytes > 0 && this.#bytes > this.#maxBytes)) {
      const oldest = this.#oldest;
      if (oldest === undefined) break;
      this.#remove(oldest);
    }
  }

  delete(resource: string, key: string): void {
    const entry = this.#maps.get(resource)?.get(key);
    if (entry !== undefined) this.#remove(entry);
  }

  #remove(entry: Entry<V>): void {
    this.#unlink(entry);
    this.#maps.get(entry.resource)?.delete(entry.key);
    this.#size--;
    this.#bytes -= entry.size;
  }

  /** Appends at the newest end. */
  #link(entry: Entry<V>): void {
    entry.older = this.#newest;
    entry.newer = undefined;
    if (this.#newest !== undefined) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
  }

  #unlink(entry: Entry<V>): void {
    if (entry.older !== undefined) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer !== undefined) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }
}
