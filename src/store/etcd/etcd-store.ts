import { Etcd3 } from 'etcd3';
import { systemClock, type Clock } from '../../core/clock.js';
import { ConflictError, invalidContinueError, NotFoundError, storeClosedError } from '../../core/errors.js';
import type { AnyObject, Resource, ResourceTypes } from '../../core/kinds.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { splitObjectKey } from '../../core/object-key.js';
import { EncodedJson } from '../encoded-json.js';
import { shareStrings } from '../shared-strings.js';
import { RecentObjects } from '../sqlite/recent-objects.js';
import {
  DEFAULT_HISTORY_RETENTION_MS,
  DEFAULT_MAX_WATCH_UNSENT_BYTES,
  type ListOptions,
  type ListResult,
  type Store,
  type StoreEvent,
  type StoreOptions,
  type WatchOptions,
} from '../store.js';
import { decodeKv, decodeObject, EtcdKeys, pagedRangeError, prefixRangeEnd, storageError } from './etcd-codec.js';
import { runCompactor } from './etcd-compactor.js';
import { etcdWatch } from './etcd-watch.js';
import { createObject, deleteObject, updateObject, type EtcdWriteTarget, type StoredValue } from './etcd-writes.js';

/** Compaction every 60 s by default; history is kept at least DEFAULT_HISTORY_RETENTION_MS (shorter is raised). */
export interface EtcdStoreOptions extends StoreOptions {
  /** Client URLs, e.g. `http://127.0.0.1:2379` (kube-apiserver's --etcd-servers). */
  endpoints: string[];
  /** Key prefix (kube-apiserver's --etcd-prefix); default `/shepherd`. */
  prefix?: string;
  /** Connect timeout; default 5 s. */
  dialTimeoutMs?: number;
  /** Objects this server last wrote or read, kept to skip the read before a replace (Store#replace); default 20,000. */
  recentObjects?: number;
}

const DEFAULT_RECENT_OBJECTS = 20_000;
const DEFAULT_RECENT_OBJECTS_BYTES = 32 * 1024 * 1024;

const DEFAULT_COMPACTION_INTERVAL_MS = 60_000;

/** Connects, checks that etcd answers (ServiceUnavailableError if not) and starts the compactor. */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<EtcdStore> {
  const store = new EtcdStore(options);
  try {
    await store.currentRevision();
  } catch (err) {
    await store.close();
    throw err;
  }
  store.startCompactor();
  return store;
}

/**
 * Store on etcd, the way the kube-apiserver uses it: resourceVersion = mod_revision, list revision = header
 * revision, compare-and-swap by transactions on mod_revision, watch by etcd watch. etcd's revision is global
 * over every key, so writes under other prefixes bump it too: revisions increase strictly but not densely.
 * The writes' transactions are in etcd-writes.ts.
 */
export class EtcdStore implements Store {
  readonly kind = 'etcd';
  readonly endpoints: readonly string[];
  readonly #client: Etcd3;
  readonly #keys: EtcdKeys;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #options: EtcdStoreOptions;
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #watchStoppers = new Set<() => void>();
  /** Filled lazily: an etcd value lacks the resourceVersion, so its bytes are never the object's JSON. */
  readonly #encoded = new EncodedJson();
  readonly #stopCompaction = new AbortController();
  #compactionLoop: Promise<void> = Promise.resolve();
  #compacted = 0;
  #closed = false;
  /**
   * The last value this server wrote or read per key: a guess, not the truth (other servers write the same etcd),
   * so it is only ever used under a compare-and-swap on its own revision, which fails if it is stale.
   */
  readonly #recent: RecentObjects<StoredValue>;
  readonly #writes: EtcdWriteTarget;

  /** Use openEtcdStore, which also checks the connection and starts compaction. */
  constructor(options: EtcdStoreOptions) {
    this.#options = options;
    this.endpoints = [...options.endpoints];
    this.#client = new Etcd3({ hosts: this.endpoints as string[], dialTimeout: options.dialTimeoutMs ?? 5000 });
    this.#keys = new EtcdKeys((options.prefix ?? '/shepherd').replace(/\/+$/, ''));
    this.#clock = options.clock ?? systemClock;
    this.#log = (options.log ?? silentLogger).child({ component: 'etcd-store' });
    this.#recent = new RecentObjects<StoredValue>(
      options.recentObjects ?? DEFAULT_RECENT_OBJECTS,
      DEFAULT_RECENT_OBJECTS_BYTES,
      (v) => v.value.length,
    );
    this.#writes = {
      keys: this.#keys,
      recent: this.#recent,
      txn: (compare, success, failure) => this.#call(() => this.#client.kv.txn({ compare, success, failure })),
      handOut: (obj) => this.#handOut(obj),
    };
  }

  get prefix(): string {
    return this.#keys.prefix;
  }

  startCompactor(): void {
    const config = {
      intervalMs: this.#options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS,
      retentionMs: Math.max(this.#options.historyRetentionMs ?? 0, DEFAULT_HISTORY_RETENTION_MS),
    };
    const target = { currentRevision: () => this.currentRevision(), compact: (r: number) => this.compact(r) };
    this.#compactionLoop = runCompactor(
      { clock: this.#clock, log: this.#log, target },
      config,
      this.#stopCompaction.signal,
    );
  }

  async get<R extends Resource>(resource: R, key: string): Promise<ResourceTypes[R]> {
    const res = await this.#call(() => this.#client.kv.range({ key: this.#keys.object(resource, key) }));
    const kv = res.kvs[0];
    if (!kv) {
      this.#recent.delete(resource, key);
      throw new NotFoundError(resource, splitObjectKey(key).name);
    }
    this.#recent.set(resource, key, { value: kv.value, revision: kv.mod_revision });
    return this.#handOut(decodeKv<ResourceTypes[R]>(kv));
  }

  async replace<R extends Resource>(
    resource: R,
    key: string,
    expectedResourceVersion: string,
    build: (current: ResourceTypes[R]) => ResourceTypes[R],
  ): Promise<ResourceTypes[R]> {
    const hit = this.#recent.get(resource, key);
    // The value written at revision R is the only one that key ever had at R: when the compare-and-swap on R
    // succeeds, what was built from the cached value at R was built from the current object.
    const current =
      hit !== undefined && hit.revision === expectedResourceVersion
        ? decodeObject<ResourceTypes[R]>(hit.value, hit.revision)
        : await this.get(resource, key);
    if (current.metadata.resourceVersion !== expectedResourceVersion) {
      throw new ConflictError(resource, current.metadata.name);
    }
    return this.update(resource, build(current), expectedResourceVersion);
  }

  async list<R extends Resource>(resource: R, options: ListOptions = {}): Promise<ListResult<ResourceTypes[R]>> {
    const kind = this.#keys.kind(resource);
    const start = Buffer.from(kind + (options.prefix ?? ''));
    const from = options.continueFrom;
    if (from !== undefined && (!Number.isSafeInteger(from.revision) || from.revision < 1)) {
      // etcd reads a revision <= 0 as "the newest": that would be a page of another list.
      throw invalidContinueError(`names revision ${from.revision}, which is not one`);
    }
    // The key right after the previous page's last one: that key with a zero byte appended.
    const after = from === undefined ? undefined : Buffer.from(`${kind}${from.key}\u0000`);
    const key = after !== undefined && Buffer.compare(after, start) > 0 ? after : start;
    const range = {
      key,
      range_end: prefixRangeEnd(start),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(from === undefined ? {} : { revision: from.revision }),
    };
    // One range read: its items and its header revision come from the same snapshot, sorted by key. Later pages
    // read at the first page's revision (the kube-apiserver's paged list), which etcd keeps until compacted.
    const res = await this.#call(() =>
      this.#client.kv.range(range).catch((err: unknown) => {
        throw pagedRangeError(err, from?.revision);
      }),
    );
    // Equal string values within the page become one string: listed objects are what informers keep.
    const seen = new Map<string, string>();
    const items = res.kvs.map((kv) => {
      const item = decodeKv<ResourceTypes[R]>(kv);
      shareStrings(item, seen);
      return this.#handOut(item);
    });
    const revision = from?.revision ?? Number(res.header.revision);
    const last = res.kvs.at(-1);
    if (!res.more || last === undefined) return { items, revision };
    return { items, revision, continueFrom: { key: last.key.toString('utf8').slice(kind.length), revision } };
  }

  create<R extends Resource>(resource: R, obj: ResourceTypes[R]): Promise<ResourceTypes[R]> {
    return createObject(this.#writes, resource, obj);
  }

  update<R extends Resource>(
    resource: R,
    obj: ResourceTypes[R],
    expectedResourceVersion: string,
  ): Promise<ResourceTypes[R]> {
    return updateObject(this.#writes, resource, obj, expectedResourceVersion);
  }

  delete<R extends Resource>(
    resource: R,
    key: string,
    options: { expectedResourceVersion?: string } = {},
  ): Promise<ResourceTypes[R]> {
    return deleteObject(this.#writes, resource, key, options);
  }

  watch<R extends Resource>(
    resource: R,
    fromRevision: number,
    options: WatchOptions = {},
  ): AsyncIterable<StoreEvent<ResourceTypes[R]>> {
    if (this.#closed) return (async function* () {})();
    const source = {
      watchClient: this.#client.watchClient,
      keys: this.#keys,
      clock: this.#clock,
      endpoints: this.endpoints,
      compactedRevision: () => this.#compacted,
      noteCompacted: (r: number) => {
        this.#compacted = Math.max(this.#compacted, r);
      },
      track: (stop: () => void) => {
        this.#watchStoppers.add(stop);
        return () => this.#watchStoppers.delete(stop);
      },
      handOut: (obj: AnyObject) => this.#handOut(obj),
      maxUnsentBytes: this.#options.maxWatchUnsentBytes ?? DEFAULT_MAX_WATCH_UNSENT_BYTES,
    };
    return etcdWatch(source, resource, fromRevision, options) as AsyncIterable<StoreEvent<ResourceTypes[R]>>;
  }

  /** etcd answers a read: the cheapest request that fails when the cluster is unreachable or has no quorum. */
  async checkHealth(): Promise<void> {
    await this.currentRevision();
  }

  encodedJson(obj: object): string | undefined {
    return this.#encoded.get(obj);
  }

  async currentRevision(): Promise<number> {
    const res = await this.#call(() =>
      this.#client.kv.range({ key: Buffer.from(`${this.#keys.prefix}/`), count_only: true }),
    );
    return Number(res.header.revision);
  }

  /**
   * What this store compacted, or learnt from etcd refusing a watch. Another server's compactor on the same
   * etcd is only noticed when a watch hits it (the watch then fails with Gone, which is the contract).
   */
  async compactedRevision(): Promise<number> {
    this.#assertOpen();
    return this.#compacted;
  }

  /** Compacts etcd's history up to `revision` (default: the current one). Returns the compacted revision. */
  async compact(revision?: number): Promise<number> {
    const target = revision ?? (await this.currentRevision());
    if (target <= this.#compacted) return this.#compacted;
    try {
      await this.#call(() => this.#client.kv.compact({ revision: target, physical: true }));
    } catch (err) {
      // Someone (another server's compactor) got there first: that is as good as ours.
      if (!(err instanceof Error && /required revision has been compacted/.test(err.message))) throw err;
    }
    this.#compacted = Math.max(this.#compacted, target);
    this.#log.debug({ compactedRevision: target }, 'compacted etcd history');
    return this.#compacted;
  }

  /** Ends every watch, waits for writes in flight, stops compaction and closes the connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const stop of [...this.#watchStoppers]) stop();
    this.#stopCompaction.abort();
    await Promise.allSettled([...this.#inflight, this.#compactionLoop]);
    this.#client.close();
  }

  /** Every object this store returns or streams passes here, so `encodedJson` knows it. */
  #handOut<T extends AnyObject>(obj: T): T {
    this.#encoded.recordLazily(obj);
    return obj;
  }

  /** Runs one etcd call, mapping transport failures to ServiceUnavailable; close() waits for it. */
  #call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(storeClosedError());
    const p = fn().catch((err: unknown) => {
      throw storageError(err, this.endpoints);
    });
    this.#inflight.add(p);
    const forget = (): void => void this.#inflight.delete(p);
    p.then(forget, forget);
    return p;
  }

  #assertOpen(): void {
    if (this.#closed) throw storeClosedError();
  }
}
