/**
 * What the node lifecycle controller reads nodes and leases through: the informer's cache (never the store
 * directly), so a stale watch is visible to the lease circuit breaker.
 */
export interface ObjectCache<T> {
  /** By key: the name, or `namespace/name` for leases. */
  get(key: string): T | undefined;
  /** Every cached object, sorted by key. */
  list(): T[];
  /** The newest resourceVersion the cache has processed (list, watch event or bookmark); "" before the first list. */
  lastSyncResourceVersion(): string;
  hasSynced(): boolean;
}
