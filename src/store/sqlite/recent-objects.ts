/**
 * The stored JSON of recently written objects, so a GET (and the read an optimistic-locking replace does
 * before every lease renewal) skips the SQLite lookup. It is exact, not a guess: this process is the only
 * writer and the store updates it in the same synchronous step as the commit. Bounded by entry count and by
 * bytes (objects may carry 64 KiB of annotations: a count alone would let 20,000 of them take over a gigabyte),
 * oldest write evicted first (a renewal rewrites its entry and moves it to the back), and it holds strings, not
 * parsed objects, so every get still returns a fresh object the caller may keep or change.
 */
export class RecentObjects<V = string> {
  readonly #entries = new Map<string, V>();
  readonly #capacity: number;
  readonly #maxBytes: number;
  readonly #sizeOf: (value: V) => number;
  #bytes = 0;
  /**
   * A live iterator at the oldest entry. Asking a fresh `entries()` for its first entry each time costs a scan
   * over every slot deleted since the map's last rehash: with a cache that evicts on every write (more hot keys
   * than capacity, e.g. 20,000+ renewing leases) that scan made `set` the busiest function of a 20k-node server.
   * A Map iterator keeps its place across deletions and sees entries added after it, in insertion order, so the
   * next one it yields is always the oldest still there.
   */
  #oldest: Iterator<[string, V]> | undefined;

  /** `maxBytes` 0: no byte bound. `sizeOf`: what one value costs (for JSON text, its length). */
  constructor(capacity: number, maxBytes = 0, sizeOf: (value: V) => number = () => 0) {
    this.#capacity = capacity;
    this.#maxBytes = maxBytes;
    this.#sizeOf = sizeOf;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** What the entries cost now, by `sizeOf`. */
  get bytes(): number {
    return this.#bytes;
  }

  get(resource: string, key: string): V | undefined {
    return this.#entries.get(`${resource}\u0000${key}`);
  }

  set(resource: string, key: string, value: V): void {
    if (this.#capacity <= 0) return;
    const size = this.#sizeOf(value);
    const k = `${resource}\u0000${key}`;
    this.delete(resource, key);
    // One value larger than the whole budget is not kept (it would evict everything else).
    if (this.#maxBytes > 0 && size > this.#maxBytes) return;
    this.#entries.set(k, value);
    this.#bytes += size;
    while (this.#entries.size > this.#capacity || (this.#maxBytes > 0 && this.#bytes > this.#maxBytes)) {
      this.#oldest ??= this.#entries.entries();
      let oldest = this.#oldest.next();
      if (oldest.done) {
        this.#oldest = this.#entries.entries();
        oldest = this.#oldest.next();
        if (oldest.done) break;
      }
      this.#entries.delete(oldest.value[0]);
      this.#bytes -= this.#sizeOf(oldest.value[1]);
    }
  }

  delete(resource: string, key: string): void {
    const k = `${resource}\u0000${key}`;
    const old = this.#entries.get(k);
    if (old === undefined) return;
    this.#entries.delete(k);
    this.#bytes -= this.#sizeOf(old);
  }
}
