/**
 * client-go `util/consistency`, the memory behind the lease circuit breaker
 * (docs/node-lifecycle.md#lease-circuit-breaker): after the controller sees a live Lease newer than its cache, it
 * records that resourceVersion here, and health evaluation stays paused (`ensureReady` fails) until the lease
 * cache has synced to at least that revision.
 *
 * Upstream keys records by owner; the node lifecycle controller only ever uses one global owner
 * (`NamespacedName{}`, UID ""), so this store holds a single record: resource → newest written RV.
 */

/** What the store needs from an informer cache: `LastStoreSyncResourceVersion()` ("" before the first sync). */
export interface SyncedCache {
  lastSyncResourceVersion(): string;
}

/** `ConsistencyError`: the cache of `resource` has not caught up with a revision the controller saw live. */
export class ConsistencyError extends Error {
  readonly resource: string;
  readonly writtenRv: string;
  readonly cachedRv: string;

  constructor(resource: string, writtenRv: string, cachedRv: string) {
    super(
      cachedRv === ''
        ? `the ${resource} cache has not synced yet (need resourceVersion ${writtenRv}); ` +
            'health checks wait until its watch delivers it'
        : `the ${resource} cache is at resourceVersion ${cachedRv}, older than ${writtenRv} seen live; ` +
            'health checks wait until its watch catches up',
    );
    this.name = 'ConsistencyError';
    this.resource = resource;
    this.writtenRv = writtenRv;
    this.cachedRv = cachedRv;
  }
}

/**
 * `resourceversion.CompareResourceVersion`: -1, 0 or 1, or undefined when either side is not a well-formed RV
 * (decimal digits, no leading zero, so "" and "0" are not). Compares by length, then lexically, so RVs of any
 * size compare without precision loss.
 */
export function compareResourceVersion(a: string, b: string): -1 | 0 | 1 | undefined {
  if (!isWellFormedRv(a) || !isWellFormedRv(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function isWellFormedRv(rv: string): boolean {
  return /^[1-9][0-9]*$/.test(rv);
}

export class ConsistencyStore {
  readonly #caches: ReadonlyMap<string, SyncedCache>;
  /** The single global owner's record: resource → newest written RV. Empty map = no record. */
  #written = new Map<string, string>();

  constructor(caches: Record<string, SyncedCache>) {
    this.#caches = new Map(Object.entries(caches));
  }

  /**
   * `WroteAt`: remember that `resource` was seen live at `rv`; keeps the newest RV per resource.
   * An unparsable RV is ignored (upstream does the same). A resource without a cache is a wiring bug: upstream
   * would record it and then fail `EnsureReady` forever, pausing the controller silently, so we throw instead.
   */
  wroteAt(resource: string, rv: string): void {
    if (!this.#caches.has(resource)) {
      throw new Error(
        `consistency store: no cache registered for "${resource}"; register it in the ConsistencyStore constructor`,
      );
    }
    const current = this.#written.get(resource);
    if (current === undefined) {
      if (isWellFormedRv(rv)) this.#written.set(resource, rv);
      return;
    }
    if (compareResourceVersion(current, rv) === -1) this.#written.set(resource, rv);
  }

  /**
   * `EnsureReady`: undefined when every tracked resource's cache has reached the written RV, and then the
   * record is cleared (one-shot: a later regression of the cache does not trip it again). A cache that has
   * not synced ("") is not ready; a cache RV that does not parse is skipped, so bad data cannot block forever.
   * Resources are checked in sorted order so the reported one is stable (docs/node-lifecycle.md#d7-sorted-iteration).
   */
  ensureReady(): ConsistencyError | undefined {
    if (this.#written.size === 0) return undefined;
    for (const [resource, writtenRv] of [...this.#written].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const cachedRv = this.#cachedRv(resource);
      if (cachedRv === '') return new ConsistencyError(resource, writtenRv, cachedRv);
      if (compareResourceVersion(writtenRv, cachedRv) === 1) return new ConsistencyError(resource, writtenRv, cachedRv);
    }
    this.#written.clear();
    return undefined;
  }

  /** The open record, resource by resource, with each cache's current RV (for the Zone annotation and logs). */
  pending(): { resource: string; writtenRv: string; cachedRv: string }[] {
    return [...this.#written]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([resource, writtenRv]) => ({ resource, writtenRv, cachedRv: this.#cachedRv(resource) }));
  }

  #cachedRv(resource: string): string {
    return this.#caches.get(resource)?.lastSyncResourceVersion() ?? '';
  }
}

/** `NewNoopConsistencyStore()`: the breaker switched off (`NodeControllerLeaseCircuitBreaker=false`). */
export const noopConsistencyStore: Pick<ConsistencyStore, 'wroteAt' | 'ensureReady' | 'pending'> = Object.freeze({
  wroteAt: (_resource: string, _rv: string): void => undefined,
  ensureReady: (): ConsistencyError | undefined => undefined,
  pending: (): { resource: string; writtenRv: string; cachedRv: string }[] => [],
});
