/**
 * What the node lifecycle controller reads nodes and leases through: the informer's cache (never the store
 * directly), so a stale watch is visible to the lease circuit breaker.
 */
export interface ObjectCache<T> {
  /** By key (core/object-key.ts): `namespace/name` for a namespaced kind, the name otherwise. */
  get(key: string): T | undefined;
  /** Every cached object, sorted by key. */
  list(): T[];
  /**
   * The same as `list()` without the copy: the cache's own sorted array. Read-only, and valid only until the
   * cache next changes, so read it synchronously, never across an await (hold `list()` for that). Optional:
   * callers fall back to `list()`. The node lifecycle controller walks 100k leases with it every monitor pass.
   */
  sortedView?(): readonly T[];
  /** The newest resourceVersion the cache has processed (list, watch event or bookmark); "" before the first list. */
  lastSyncResourceVersion(): string;
  hasSynced(): boolean;
}
