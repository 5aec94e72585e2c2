import type { AnyObject, Resource, ResourceTypes } from '../core/kinds.js';

/**
 * The storage primitives shepherd needs, shaped like etcd's so every backend (SQLite, etcd) gives the same
 * guarantees: one global revision counter over all kinds; an object's resourceVersion is the
 * revision of its last write (etcd mod_revision); a list carries the store revision it was read at (etcd
 * header revision); updates are compare-and-swap on resourceVersion; watch replays every change after a
 * revision in order, or fails with GoneError once that history is compacted.
 *
 * The store assigns only `metadata.resourceVersion`; uid, timestamps and validation belong to the registry.
 * Every write that resolves is durable.
 */
export interface Store {
  /** Throws NotFoundError. */
  get<R extends Resource>(resource: R, key: string): Promise<ResourceTypes[R]>;
  /** Every object of a kind, sorted by key, read at one revision. `prefix` limits keys (e.g. a lease namespace). */
  list<R extends Resource>(resource: R, options?: { prefix?: string }): Promise<ListResult<ResourceTypes[R]>>;
  /** Throws AlreadyExistsError. Returns the stored object with its new resourceVersion. */
  create<R extends Resource>(resource: R, obj: ResourceTypes[R]): Promise<ResourceTypes[R]>;
  /**
   * Replaces the object whose key is derived from `obj`, only if its current resourceVersion equals
   * `expectedResourceVersion`. Throws ConflictError when stale, NotFoundError when absent.
   */
  update<R extends Resource>(
    resource: R,
    obj: ResourceTypes[R],
    expectedResourceVersion: string,
  ): Promise<ResourceTypes[R]>;
  /** Deletes and returns the last state (with the deletion's resourceVersion). Throws NotFound / Conflict. */
  delete<R extends Resource>(
    resource: R,
    key: string,
    options?: { expectedResourceVersion?: string },
  ): Promise<ResourceTypes[R]>;
  /**
   * Every change of `resource` with revision > fromRevision, in revision order, none twice, none skipped.
   * Fails with GoneError (thrown from the iterator) when fromRevision is older than the kept history.
   * With `progressIntervalMs`, yields a BOOKMARK carrying the newest revision whenever the stream was idle
   * that long: every change up to that revision has been delivered before it.
   */
  watch<R extends Resource>(
    resource: R,
    fromRevision: number,
    options?: WatchOptions,
  ): AsyncIterable<StoreEvent<ResourceTypes[R]>>;
  /**
   * `JSON.stringify(obj)` for an object this store handed out (from get, list, create, update, delete or a
   * watch event) and undefined for any other object, so the API can send the text the store already built
   * (both backends build it at most once per object). The object must not have been changed since.
   */
  encodedJson(obj: object): string | undefined;
  /** The newest revision the store has committed. */
  currentRevision(): Promise<number>;
  /** Oldest revision a watch can resume from (watch(from) needs from >= compactedRevision). */
  compactedRevision(): Promise<number>;
  /** A short name for /version and logs: `sqlite` or `etcd`. */
  readonly kind: string;
  close(): Promise<void>;
}

export interface ListResult<T> {
  items: T[];
  revision: number;
}

export interface WatchOptions {
  signal?: AbortSignal;
  progressIntervalMs?: number;
}

export type StoreEvent<T = AnyObject> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T; revision: number } | { type: 'BOOKMARK'; revision: number };

/** Parses a resourceVersion string to a revision number; NaN when it is not a decimal integer. */
export function parseRevision(rv: string | undefined): number {
  if (rv === undefined || !/^\d+$/.test(rv)) return Number.NaN;
  return Number(rv);
}
