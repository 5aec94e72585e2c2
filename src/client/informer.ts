import { abortError, isAbortError, type Clock } from '../core/clock.js';
import { GoneError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { systemRandom, type Random } from '../core/random.js';
import type { ResourceClient, WatchEvent } from './api-client.js';
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

/** A list that expires between its pages (410) is started again from its first page this often. */
const LIST_ATTEMPTS = 3;

/**
 * The list + watch cache the controller reads through (client-go's SharedInformer + Reflector):
 * list, then watch from the list's resourceVersion with bookmarks; when a stream ends, resume from the last
 * resourceVersion seen; on Gone, relist, bring the cache to the list and emit the difference; on errors back off.
 * Lists are read in pages straight into the cache, so a large kind is never held twice.
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

  /** `list()` without the copy, read-only: the next watch event patches or replaces this array. */
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
    const resourceVersion = await this.#list(signal);
    const events = watchWithResume(client, {
      ...selector,
      resourceVersion,
      allowWatchBookmarks: true,
      relist: () => this.#list(signal),
      signal,
      clock: this.#options.clock,
      random,
      log: this.#log,
      backoff: policy,
      keyOf: this.#options.keyOf,
    });
    for await (const ev of events) this.#apply(ev);
  }

  /** Lists into the cache (initial list or relist after Gone), starting again if the list expires midway. */
  async #list(signal: AbortSignal): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#listPages(signal);
      } catch (err) {
        if (!(err instanceof GoneError) || attempt >= LIST_ATTEMPTS || signal.aborted) throw err;
        this.#log.info({ attempt }, 'the list expired between its pages; listing again');
      }
    }
  }

  /**
   * Brings the cache to one list, page by page, with one copy of each object (client-go's Reflector holds the
   * whole list, then replaces its store): a listed object replaces the cached one of its key, a cached key the list
   * passes over is deleted, each change emitted as it is applied, in key order. Pages come in key order, so the
   * cached keys are walked beside them. `lastSyncResourceVersion` moves to the list's once every page is in; a
   * list that fails midway leaves what it applied, and the next list corrects the rest.
   */
  async #listPages(signal: AbortSignal): Promise<string> {
    const { client, labelSelector, keyOf } = this.#options;
    const cached = this.#sorted?.keys ?? [...this.#cache.keys()].sort();
    // The walk beside the pages needs no set of the listed keys (100,000 of them at a cold start, garbage right
    // after): a cached key still ahead of the walk is either the key listed last or one the list passed over.
    let lastListed: string | undefined;
    let listed = 0;
    let next = 0;
    // Deletes the cached keys before `key` (all that remain, without one) that the list did not hold.
    const dropBefore = (key: string | undefined): void => {
      for (; next < cached.length && (key === undefined || (cached[next] as string) < key); next++) {
        const k = cached[next] as string;
        if (k !== lastListed) this.#delete(k);
      }
    };
    let resourceVersion = '';
    for await (const page of client.listPages({ ...(labelSelector === undefined ? {} : { labelSelector }), signal })) {
      resourceVersion = page.metadata.resourceVersion;
      for (const obj of page.items) {
        const key = keyOf(obj);
        dropBefore(key);
        lastListed = key;
        listed++;
        const old = this.#cache.get(key);
        if (old !== undefined && old.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
        this.#cache.set(key, obj);
        this.#patchSorted(key, old === undefined ? undefined : obj);
        this.#emit(old === undefined ? 'ADDED' : 'MODIFIED', obj, old);
      }
    }
    dropBefore(undefined);
    this.#lastSyncRV = resourceVersion;
    this.#log.debug({ resourceVersion, items: listed }, 'listed');
    this.#markSynced();
    return resourceVersion;
  }

  #delete(key: string): void {
    const old = this.#cache.get(key);
    if (old === undefined) return;
    this.#cache.delete(key);
    this.#patchSorted(key, undefined);
    this.#emit('DELETED', old, old);
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
