import { abortError, isAbortError, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { systemRandom, type Random } from '../core/random.js';
import type { ObjectList, ResourceClient, WatchEvent } from './api-client.js';
import { ReconnectBackoff, type BackoffPolicy } from './backoff.js';
import type { ObjectCache } from './object-cache.js';
import { watchWithResume } from './watch-resume.js';

export interface InformerOptions<T> {
  client: ResourceClient<T>;
  clock: Clock;
  log: Logger;
  random?: Random;
  /** The cache key of an object: `keyOf(resource, obj)` (core/kinds.ts). */
  keyOf: (obj: T) => string;
  labelSelector?: string;
  /** Reconnect backoff; default 1 s → 30 s, doubling, with jitter. */
  backoff?: Partial<BackoffPolicy>;
  /** For logs. */
  name?: string;
}

export type InformerHandler<T> = (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T, old: T | undefined) => void;

type Meta = { metadata: { name: string; namespace?: string; resourceVersion: string } };

/**
 * The list + watch cache the controller reads through (client-go's SharedInformer + Reflector):
 * list, then watch from the list's resourceVersion with bookmarks; when a stream ends, resume from the last
 * resourceVersion seen; on Gone, relist, replace the cache and emit the difference; on errors back off.
 *
 * `lastSyncResourceVersion()` advances with the list, every watch event and every bookmark (client-go's
 * `LastStoreSyncResourceVersion`), and only then: while the watch is stalled it stays put, which is what lets
 * the lease circuit breaker notice a stale cache.
 */
export class Informer<T extends Meta> implements ObjectCache<T> {
  readonly #options: InformerOptions<T>;
  readonly #log: Logger;
  readonly #cache = new Map<string, T>();
  readonly #handlers = new Set<InformerHandler<T>>();
  #synced = false;
  #syncWaiters: Array<() => void> = [];
  #lastSyncRV = '';
  #running = false;
  /**
   * `list()`'s order, kept between calls: the node lifecycle controller lists every monitor pass, and sorting
   * 100k keys each time cost more than the rest of its pass. Patched in place when an object changes, dropped
   * (rebuilt on the next `list()`) when one is added or deleted.
   */
  #sorted: { keys: string[]; objects: T[] } | undefined;

  constructor(options: InformerOptions<T>) {
    this.#options = options;
    this.#log = options.log.child({ informer: options.name ?? 'informer' });
  }

  /** Runs until the signal aborts (then resolves). */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`informer ${this.#options.name ?? ''} is already running`);
    this.#running = true;
    const policy = {
      initialMs: this.#options.backoff?.initialMs ?? 1_000,
      maxMs: this.#options.backoff?.maxMs ?? 30_000,
    };
    const random = this.#options.random ?? systemRandom;
    const backoff = new ReconnectBackoff(policy, random);
    try {
      while (!signal.aborted) {
        try {
          await this.#listAndWatch(signal, policy, random);
        } catch (err) {
          if (signal.aborted) return;
          const delayMs = backoff.next();
          this.#log.warn({ err, delayMs }, `list and watch failed; retrying in ${delayMs}ms`);
          try {
            await this.#options.clock.sleep(delayMs, signal);
          } catch (sleepErr) {
            if (signal.aborted || isAbortError(sleepErr)) return;
            throw sleepErr;
          }
          continue;
        }
        backoff.reset();
      }
    } finally {
      this.#running = false;
    }
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#syncWaiters = this.#syncWaiters.filter((w) => w !== done);
        reject(abortError(signal));
      };
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#syncWaiters.push(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  lastSyncResourceVersion(): string {
    return this.#lastSyncRV;
  }

  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  /** The cached objects themselves (not copies: treat them as read-only), in a new array sorted by key. */
  list(): T[] {
    return this.sortedView().slice();
  }

  /** `list()` without the copy (see ObjectCache): the next watch event patches or replaces this array. */
  sortedView(): readonly T[] {
    if (this.#sorted === undefined) {
      const keys = [...this.#cache.keys()].sort();
      this.#sorted = { keys, objects: keys.map((k) => this.#cache.get(k)!) };
    }
    return this.#sorted.objects;
  }

  /** Handlers run synchronously, in the order events are applied; returns an unsubscribe function. */
  onEvent(handler: InformerHandler<T>): () => void {
    this.#handlers.add(handler);
    return () => {
      this.#handlers.delete(handler);
    };
  }

  async #listAndWatch(signal: AbortSignal, policy: BackoffPolicy, random: Random): Promise<void> {
    const { client, labelSelector } = this.#options;
    const selector = labelSelector === undefined ? {} : { labelSelector };
    const list = await client.list({ ...selector, signal });
    this.#replace(list);
    const events = watchWithResume(client, {
      ...selector,
      resourceVersion: list.metadata.resourceVersion,
      allowWatchBookmarks: true,
      onRelist: (l) => this.#replace(l),
      signal,
      clock: this.#options.clock,
      random,
      log: this.#log,
      backoff: policy,
      keyOf: this.#options.keyOf,
    });
    for await (const ev of events) this.#apply(ev);
  }

  /** Swaps the cache for a list (initial list or relist after Gone) and emits the difference in key order. */
  #replace(list: ObjectList<T>): void {
    const fresh = new Map(list.items.map((o) => [this.#options.keyOf(o), o]));
    const old = new Map(this.#cache);
    this.#cache.clear();
    this.#sorted = undefined;
    for (const [k, v] of fresh) this.#cache.set(k, v);
    this.#lastSyncRV = list.metadata.resourceVersion;
    this.#log.debug({ resourceVersion: this.#lastSyncRV, items: fresh.size }, 'listed');
    for (const key of [...new Set([...old.keys(), ...fresh.keys()])].sort()) {
      const before = old.get(key);
      const after = fresh.get(key);
      if (after === undefined) this.#emit('DELETED', before!, before);
      else if (before === undefined) this.#emit('ADDED', after, undefined);
      else if (before.metadata.resourceVersion !== after.metadata.resourceVersion)
        this.#emit('MODIFIED', after, before);
    }
    this.#markSynced();
  }

  #apply(ev: WatchEvent<T>): void {
    if (ev.type === 'BOOKMARK') {
      this.#lastSyncRV = ev.object.metadata.resourceVersion;
      return;
    }
    const key = this.#options.keyOf(ev.object);
    const old = this.#cache.get(key);
    if (ev.type === 'DELETED') this.#cache.delete(key);
    else this.#cache.set(key, ev.object);
    this.#patchSorted(key, ev.type === 'DELETED' || old === undefined ? undefined : ev.object);
    this.#lastSyncRV = ev.object.metadata.resourceVersion;
    // As client-go's processDeltas: an ADDED for a cached object is an update, a MODIFIED for an unknown one an add.
    const type = ev.type === 'DELETED' ? 'DELETED' : old === undefined ? 'ADDED' : 'MODIFIED';
    this.#emit(type, ev.object, old);
  }

  /** Keeps `#sorted` current: `obj` replaces the entry of `key`; undefined (an add or a delete) drops the order. */
  #patchSorted(key: string, obj: T | undefined): void {
    const sorted = this.#sorted;
    if (sorted === undefined) return;
    const i = obj === undefined ? -1 : indexOfSorted(sorted.keys, key);
    if (i < 0) this.#sorted = undefined;
    else sorted.objects[i] = obj as T;
  }

  #emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T, old: T | undefined): void {
    for (const handler of this.#handlers) {
      try {
        handler(type, obj, old);
      } catch (err) {
        this.#log.error({ err, type, key: this.#options.keyOf(obj) }, 'informer event handler threw; continuing');
      }
    }
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    const waiters = this.#syncWaiters;
    this.#syncWaiters = [];
    for (const w of waiters) w();
  }
}

/** Binary search in keys sorted by `Array.prototype.sort()` (UTF-16 code units, as `<` compares); -1 when absent. */
function indexOfSorted(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid] as string;
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
