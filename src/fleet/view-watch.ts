import type { ResourceClient } from '../client/api-client.js';
import { watchWithResume } from '../client/watch-resume.js';
import { isAbortError, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';

export type ViewChange<V> = (name: string, before: V | undefined, after: V | undefined) => void;

export interface ViewWatchDeps {
  clock: Clock;
  log: Logger;
}

type Named = { metadata: { name: string; resourceVersion: string } };

/**
 * A name → view map of one kind, kept current by one list + watch (resumed on a dropped stream, relisted on
 * Gone). A watch costs the server one event per change; listing 50,000 nodes every few seconds would cost it
 * tens of megabytes of JSON each time and skew the very figures the simulator reports. The simulator keeps a
 * few strings per object (`viewOf`), not the object (50,000 Node objects cost ~200 MB).
 */
export class ViewWatch<T extends Named, V> {
  readonly #what: string;
  readonly #client: ResourceClient<T>;
  readonly #viewOf: (obj: T) => V;
  /** Listeners hear of a change only when this says the view changed (always without it). */
  readonly #same: ((a: V | undefined, b: V | undefined) => boolean) | undefined;
  readonly #deps: ViewWatchDeps;
  readonly #views = new Map<string, V>();
  readonly #listeners = new Set<ViewChange<V>>();
  #synced = false;

  constructor(
    what: string,
    client: ResourceClient<T>,
    viewOf: (obj: T) => V,
    same: ((a: V | undefined, b: V | undefined) => boolean) | undefined,
    deps: ViewWatchDeps,
  ) {
    this.#what = what;
    this.#client = client;
    this.#viewOf = viewOf;
    this.#same = same;
    this.#deps = deps;
  }

  /** True once the first list arrived. */
  get synced(): boolean {
    return this.#synced;
  }

  get(name: string): V | undefined {
    return this.#views.get(name);
  }

  protected values(): IterableIterator<V> {
    return this.#views.values();
  }

  onChange(listener: ViewChange<V>): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  async run(signal: AbortSignal): Promise<void> {
    const { clock, log } = this.#deps;
    while (!signal.aborted) {
      try {
        const list = await this.#client.list({ signal });
        this.#replace(list.items);
        const events = watchWithResume(this.#client, {
          resourceVersion: list.metadata.resourceVersion,
          allowWatchBookmarks: true,
          onRelist: (l) => this.#replace(l.items),
          signal,
          clock,
          log,
        });
        for await (const ev of events) {
          if (ev.type === 'BOOKMARK') continue;
          this.#set(ev.object.metadata.name, ev.type === 'DELETED' ? undefined : this.#viewOf(ev.object));
        }
      } catch (err) {
        if (signal.aborted || isAbortError(err)) return;
        log.warn({ err: String(err) }, `watching ${this.#what} failed (${String(err)}); listing again in 2s`);
        await clock.sleep(2000, signal).catch(() => undefined);
      }
    }
  }

  #replace(items: T[]): void {
    const seen = new Set<string>();
    for (const obj of items) {
      seen.add(obj.metadata.name);
      this.#set(obj.metadata.name, this.#viewOf(obj));
    }
    for (const name of [...this.#views.keys()]) if (!seen.has(name)) this.#set(name, undefined);
    this.#synced = true;
  }

  #set(name: string, after: V | undefined): void {
    const before = this.#views.get(name);
    if (after === undefined) this.#views.delete(name);
    else this.#views.set(name, after);
    if (this.#same?.(before, after)) return;
    for (const l of this.#listeners) l(name, before, after);
  }
}
