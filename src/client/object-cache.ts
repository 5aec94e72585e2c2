/**
 * What the node lifecycle controller reads nodes and leases through: the informer's cache (never the store
 * directly), so a stale watch is visible to the lease circuit breaker.
 */
export interface ObjectCache<T> {
  /** By key (core/object-key.ts): `namespace/name` for a namespaced kind, the name otherwise. */
  get(key: string): T | undefined;
  /** Every cached object, sorted by key, in a new array (the objects are the cache's own: read-only). */
  list(): T[];
  /** The newest resourceVersion the cache has processed (list, watch event or bookmark); "" before the first list. */
  lastSyncResourceVersion(): string;
  hasSynced(): boolean;
}
