import type { Clock } from '../core/clock.js';
import { invalidResourceVersionError } from '../core/errors.js';
import type { AnyObject, Resource, ResourceTypes } from '../core/kinds.js';
import type { Logger } from '../core/logger.js';

/** How a write may be carried out; the write's outcome is the same either way. */
export interface WriteOptions {
  /**
   * The caller built `obj` for this write and keeps no reference to it or to anything in it (a registry's object
   * made from a parsed body). The store may then hand in-process watchers the object the write returns instead of
   * a copy parsed from its JSON: the same immutable object the watchers of a change already share. A renewal
   * saves a parse and an object's worth of garbage (BENCHMARKS.md section 26).
   */
  handOver?: boolean;
}

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
  /**
   * Objects of a kind, sorted by key, read at one revision. `prefix` limits keys (e.g. a lease namespace).
   * With `limit`, at most that many, and `continueFrom` set when more remain; passing it back reads the next page
   * at the first page's revision, so the pages of one list are one consistent read (etcd's paged range at a
   * revision). Throws GoneError when that revision can no longer be read (history compacted, list snapshot
   * expired) and BadRequestError for a continuation this store cannot have handed out (a future revision).
   */
  list<R extends Resource>(resource: R, options?: ListOptions): Promise<ListResult<ResourceTypes[R]>>;
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
    options?: WriteOptions,
  ): Promise<ResourceTypes[R]>;
  /**
   * Optimistic-locking replace (Kubernetes' GuaranteedUpdate without the retry): `build(current)` where current
   * is the object at `expectedResourceVersion`, written only if it is still at that version. ConflictError when
   * stale, NotFoundError when absent. Optional: a backend that answers `get` from memory lacks it, and the
   * registry reads then updates; one whose reads are round trips (etcd) builds from a cached object at that
   * version when it has one and lets the compare-and-swap verify it, so a fresh write is one round trip.
   */
  replace?<R extends Resource>(
    resource: R,
    key: string,
    expectedResourceVersion: string,
    build: (current: ResourceTypes[R]) => ResourceTypes[R],
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
  /**
   * Resolves while the store works; throws ServiceUnavailableError when it has started failing (a damaged
   * database, repeated I/O errors, an unreachable etcd). `/readyz` asks it.
   */
  checkHealth(): Promise<void>;
  /** Oldest revision a watch can resume from (watch(from) needs from >= compactedRevision). */
  compactedRevision(): Promise<number>;
  /** A short name for /version and logs: `sqlite` or `etcd`. */
  readonly kind: string;
  close(): Promise<void>;
}

/** What every backend's options share; each documents its own defaults. */
export interface StoreOptions {
  /** Default systemClock (history retention and the compaction period). */
  clock?: Clock;
  log?: Logger;
  /** Change history kept for watch resumes; at least DEFAULT_HISTORY_RETENTION_MS by default. */
  historyRetentionMs?: number;
  /** How often history older than the retention is compacted. */
  compactionIntervalMs?: number;
  /** Bytes of changes a watcher may have waiting before its watch ends (watchTooSlowError); default 16 MiB. */
  maxWatchUnsentBytes?: number;
}

/**
 * How far (in bytes of changes not yet sent) a watcher may fall behind before the store ends its watch with
 * watchTooSlowError: a client that never reads must not hold the server's memory (docs/api.md#limits).
 */
export const DEFAULT_MAX_WATCH_UNSENT_BYTES = 16 * 1024 * 1024;

/** 5 min of history: a watch that reconnects within that resumes instead of relisting. */
export const DEFAULT_HISTORY_RETENTION_MS = 5 * 60_000;

export interface ListOptions {
  /** Only keys starting with this. */
  prefix?: string;
  /** At most this many items (a positive integer); absent: every remaining one. */
  limit?: number;
  /** Where the previous page ended: its `continueFrom`. */
  continueFrom?: ListContinuation;
}

/** What the next page of a list needs: where the last page ended, and the revision every page is read at. */
export interface ListContinuation {
  /** The key of the last item of the previous page; the next page starts after it. */
  key: string;
  revision: number;
}

export interface ListResult<T> {
  items: T[];
  /** The revision the list is read at: the same on every page. */
  revision: number;
  /** Set when more items remain after this page. */
  continueFrom?: ListContinuation;
}

export interface WatchOptions {
  signal?: AbortSignal;
  progressIntervalMs?: number;
  /**
   * Called once, as soon as the watcher falls too far behind (before the iterator, which the watcher may not be
   * pulling, throws watchTooSlowError): a server streaming to a client that stopped reading ends the stream.
   */
  onOverflow?: (err: Error) => void;
}

export type StoreEvent<T = AnyObject> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T; revision: number } | { type: 'BOOKMARK'; revision: number };

/** A watch starts after a revision: a non-negative integer (BadRequest otherwise). */
export function checkWatchStart(from: number): void {
  if (!Number.isSafeInteger(from) || from < 0) throw invalidResourceVersionError(from);
}

/**
 * Parses a resourceVersion string to a revision number; NaN when it is not a decimal integer a revision can be
 * (`-1`, `1e3` and `99999999999999999999`, beyond 2^53, are not).
 */
export function parseRevision(rv: string | undefined): number {
  if (rv === undefined || !/^\d{1,16}$/.test(rv)) return Number.NaN;
  const n = Number(rv);
  return Number.isSafeInteger(n) ? n : Number.NaN;
}
