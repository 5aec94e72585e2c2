import { isAbortError, type Clock } from '../../core/clock.js';
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

/** A narrower store of a resource: the objects a selector picks (one node's Verdicts, the pods on one node). */
export interface StoreScope {
  /** The selector, encoded for the query string (`fieldSelector=node%3Dn1`). */
  query: string;
  /** For the connection indicator: `verdicts of n1`. */
  title: string;
}

/**
 * How long a store no view holds keeps running: moving from the Nodes table to a node and back must not list ten
 * thousand nodes again, but a store left behind must not keep one of the browser's six connections for long.
 */
export const LINGER_MS = 3000;
/** The browser's HTTP/1.1 connections per server: past this many watches, a lingering one gives way at once. */
export const MAX_STREAMS = 6;

type AnyStore = ListWatchStore<ResourceTypes[ResourceName]>;

interface Entry {
  store: AnyStore;
  stop: AbortController;
  holds: number;
  /** Aborted when a view holds the store again before its linger ran out. */
  linger: AbortController | undefined;
}

/**
 * The page's stores, one per resource (and per scope), started the first time a view asks for one. Views hold the
 * stores they show (`hold`); a store nobody holds stops LINGER_MS later. Browsers open at most six HTTP/1.1
 * connections per server and each watch keeps one, so only what the open view needs is watched
 * (docs/dashboard.md#connections). The session holds the zones for good: the chart samples them in every view.
 */
export class Stores {
  readonly #d: StoresDeps;
  readonly #abort = new AbortController();
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Set<() => void>();

  constructor(deps: StoresDeps) {
    this.#d = deps;
  }

  get<N extends ResourceName>(name: N, scope?: StoreScope): ListWatchStore<ResourceTypes[N]> {
    const key = scope === undefined ? name : `${name}?${scope.query}`;
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      const resource = RESOURCES[name];
      const store = new ListWatchStore<ResourceTypes[N]>({
        resource: scope === undefined ? resource : { ...resource, query: scope.query, title: scope.title },
        transport: this.#d.transport,
        clock: this.#d.clock,
        random: this.#d.random,
      }) as unknown as AnyStore;
      this.#makeRoom();
      const stop = new AbortController();
      const onSessionEnd = (): void => stop.abort();
      this.#abort.signal.addEventListener('abort', onSessionEnd, { once: true });
      entry = { store, stop, holds: 0, linger: undefined };
      this.#entries.set(key, entry);
      void store.run(stop.signal).then(() => {
        this.#abort.signal.removeEventListener('abort', onSessionEnd);
        if (store.status.phase === 'unauthorized' && !this.#abort.signal.aborted) this.#d.onUnauthorized();
      });
      // Until a view holds it, it is as good as released (a view that rendered once and went away).
      this.#linger(key, entry);
      this.#changed();
    }
    return entry.store as unknown as ListWatchStore<ResourceTypes[N]>;
  }

  /** Keeps the store running until the returned function is called (then it lingers and stops). */
  hold(store: object): () => void {
    const found = [...this.#entries].find(([, e]) => e.store === store);
    if (found === undefined) return () => {};
    const [key, entry] = found;
    entry.holds++;
    entry.linger?.abort();
    entry.linger = undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.holds--;
      if (entry.holds === 0) this.#linger(key, entry);
    };
  }

  /** The stores running now, for the connection indicator. */
  started(): AnyStore[] {
    return [...this.#entries.values()].map((e) => e.store);
  }

  /** Called when a store starts or stops. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  stop(): void {
    this.#abort.abort();
  }

  /** Stops lingering stores (the oldest first) until a new one fits in the browser's connections. */
  #makeRoom(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size < MAX_STREAMS) return;
      if (entry.holds > 0) continue;
      entry.linger?.abort();
      this.#entries.delete(key);
      entry.stop.abort();
    }
  }

  #linger(key: string, entry: Entry): void {
    const linger = new AbortController();
    entry.linger = linger;
    this.#d.clock.sleep(LINGER_MS, linger.signal).then(
      () => {
        if (entry.holds > 0 || this.#entries.get(key) !== entry) return;
        this.#entries.delete(key);
        entry.stop.abort();
        this.#changed();
      },
      (err: unknown) => {
        if (!isAbortError(err)) throw err;
      },
    );
  }

  #changed(): void {
    for (const l of this.#listeners) l();
  }
}
