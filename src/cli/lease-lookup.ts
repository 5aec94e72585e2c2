import type { ObjectList, ResourceClient } from '../client/api-client.js';
import type { Lease } from '../core/lease.js';

/**
 * The node leases of nodes printed a page at a time in name order: the lease list is read alongside, a page at a
 * time (its keys `node-lease/<name>` sort as the names do), keeping only the leases a page of nodes needs. One
 * list for every node, as before paging, without holding every lease.
 */
export class LeaseLookup {
  readonly #leases: ResourceClient<Lease>;
  readonly #signal: AbortSignal | undefined;
  #pages: AsyncIterator<ObjectList<Lease>> | undefined;
  #ahead: Lease[] = [];
  #at = 0;
  #done = false;

  constructor(leases: ResourceClient<Lease>, signal?: AbortSignal) {
    this.#leases = leases;
    this.#signal = signal;
  }

  /** The leases of `names`, sorted ascending and each call's names after the previous call's. */
  async forNames(names: readonly string[]): Promise<Map<string, Lease>> {
    const found = new Map<string, Lease>();
    const last = names.at(-1);
    if (last === undefined) return found;
    const wanted = new Set(names);
    for (;;) {
      for (; this.#at < this.#ahead.length; this.#at++) {
        const lease = this.#ahead[this.#at] as Lease;
        if (lease.metadata.name > last) return found;
        if (wanted.has(lease.metadata.name)) found.set(lease.metadata.name, lease);
      }
      if (this.#done) return found;
      this.#pages ??= this.#leases.listPages(this.#signal ? { signal: this.#signal } : {})[Symbol.asyncIterator]();
      const next = await this.#pages.next();
      this.#done = next.done === true;
      this.#ahead = next.done === true ? [] : next.value.items;
      this.#at = 0;
    }
  }
}
