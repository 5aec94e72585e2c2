/**
 * The stored JSON of recently written objects, so a GET (and the read an optimistic-locking replace does
 * before every lease renewal) skips the SQLite lookup. It is exact, not a guess: this process is the only
 * writer and the store updates it in the same synchronous step as the commit. Bounded by entry count, oldest
 * write evicted first (a renewal rewrites its entry and moves it to the back), and it holds strings, not parsed
 * objects, so every get still returns a fresh object the caller may keep or change.
 */
export class RecentObjects<V = string> {
  readonly #entries = new Map<string, V>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(resource: string, key: string): V | undefined {
    return this.#entries.get(`${resource}\u0000${key}`);
  }

  set(resource: string, key: string, value: V): void {
    if (this.#capacity <= 0) return;
    const k = `${resource}\u0000${key}`;
    this.#entries.delete(k);
    this.#entries.set(k, value);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  delete(resource: string, key: string): void {
    this.#entries.delete(`${resource}\u0000${key}`);
  }
}
