import type { Clock } from '../../core/clock.js';
import type { Random } from '../../core/random.js';
import { ListWatchStore } from './list-watch-store.js';
import { RESOURCES, type ResourceName, type ResourceTypes } from './resources.js';
import type { ApiTransport } from './transport.js';

export interface StoresDeps {
  transport: ApiTransport;
  clock: Clock;
  random: Random;
  /** Called once when any store is refused with 401: the token is missing, wrong or revoked. */
  onUnauthorized: () => void;
}

/**
 * The page's stores, one per resource, started the first time a view asks for one and kept running while the
 * user is signed in (going back to a view is instant, and the chart keeps its history). Browsers open at most
 * six HTTP/1.1 connections per server, so only what a view needs is watched (docs/dashboard.md#connections).
 */
export class Stores {
  readonly #d: StoresDeps;
  readonly #abort = new AbortController();
  readonly #stores = new Map<ResourceName, ListWatchStore<ResourceTypes[ResourceName]>>();
  readonly #listeners = new Set<(name: ResourceName) => void>();

  constructor(deps: StoresDeps) {
    this.#d = deps;
  }

  get<N extends ResourceName>(name: N): ListWatchStore<ResourceTypes[N]> {
    let store = this.#stores.get(name);
    if (store === undefined) {
      store = new ListWatchStore<ResourceTypes[N]>({
        resource: RESOURCES[name],
        transport: this.#d.transport,
        clock: this.#d.clock,
        random: this.#d.random,
      }) as ListWatchStore<ResourceTypes[ResourceName]>;
      this.#stores.set(name, store);
      const started = store;
      void started.run(this.#abort.signal).then(() => {
        if (started.status.phase === 'unauthorized' && !this.#abort.signal.aborted) this.#d.onUnauthorized();
      });
      for (const l of this.#listeners) l(name);
    }
    return store as unknown as ListWatchStore<ResourceTypes[N]>;
  }

  /** The stores started so far, for the connection indicator. */
  started(): Array<ListWatchStore<ResourceTypes[ResourceName]>> {
    return [...this.#stores.values()];
  }

  /** Called when a store is started. */
  onStart(listener: (name: ResourceName) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  stop(): void {
    this.#abort.abort();
  }
}
