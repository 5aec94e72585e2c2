import { isAbortError, type Clock } from '../core/clock.js';
import { isReason } from '../core/errors.js';
import type { Resource, ResourceTypes } from '../core/kinds.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../store/store.js';

/** What every server-side collector (expired Events, expired Verdicts, orphaned pods) runs on. */
export interface PeriodicGcDeps {
  clock: Clock;
  intervalMs: number;
  log: Logger;
  signal: AbortSignal;
}

/** Objects a collector reads per store page: one bounded read and parse, whatever the fleet's size. */
export const GC_PAGE = 500;

/** What a conditional delete needs of an object, and all a collector keeps of one between its list and deletes. */
export interface DoomedRef {
  metadata: { name: string; namespace?: string; resourceVersion: string };
}

/**
 * Visits every object of `resource` (with `prefix`, if given), read GC_PAGE at a time, every page at the first
 * one's revision, which it answers: a pass over 100,000 Verdicts never reads them in one synchronous step.
 */
export async function forEachInPages<R extends Resource>(
  store: Store,
  resource: R,
  visit: (item: ResourceTypes[R]) => void,
  prefix?: string,
): Promise<number> {
  const where = prefix === undefined ? {} : { prefix };
  let page = await store.list(resource, { ...where, limit: GC_PAGE });
  for (;;) {
    for (const item of page.items) visit(item);
    if (page.continueFrom === undefined) return page.revision;
    page = await store.list(resource, { ...where, limit: GC_PAGE, continueFrom: page.continueFrom });
  }
}

export interface PickOptions<R extends Resource> {
  /** Only keys with this prefix (a namespace's: namespaceKeyPrefix). */
  prefix?: string;
  /** Told each picked item with its ref, to keep more of it than the ref (the orphan collector's owner keys). */
  picked?: (item: ResourceTypes[R], ref: DoomedRef) => void;
}

/**
 * Every object of `resource` that `doomed` picks, read in pages (forEachInPages) and kept only as a DoomedRef, so a
 * pass never holds every object parsed. Also answers the revision the list was read at.
 */
export async function pickInPages<R extends Resource>(
  store: Store,
  resource: R,
  doomed: (item: ResourceTypes[R]) => boolean,
  options: PickOptions<R> = {},
): Promise<{ refs: DoomedRef[]; revision: number }> {
  const refs: DoomedRef[] = [];
  const revision = await forEachInPages(
    store,
    resource,
    (item) => {
      if (!doomed(item)) return;
      const { name, namespace, resourceVersion } = item.metadata as DoomedRef['metadata'];
      const ref = {
        metadata: namespace === undefined ? { name, resourceVersion } : { name, namespace, resourceVersion },
      };
      refs.push(ref);
      options.picked?.(item, ref);
    },
    options.prefix,
  );
  return { refs, revision };
}

/**
 * Deletes each item `doomed` picks, each delete conditional on the resourceVersion it was judged at (so an object
 * changed meanwhile survives until the next pass); objects already gone or changed are skipped. Answers how many
 * it deleted.
 */
export async function deleteEach<T extends { metadata: { resourceVersion: string } }>(
  items: readonly T[],
  doomed: (item: T) => boolean,
  remove: (item: T, expectedResourceVersion: string) => Promise<unknown>,
): Promise<number> {
  let deleted = 0;
  for (const item of items) {
    if (!doomed(item)) continue;
    try {
      await remove(item, item.metadata.resourceVersion);
      deleted++;
    } catch (err) {
      if (!isReason(err, 'NotFound') && !isReason(err, 'Conflict')) throw err;
    }
  }
  return deleted;
}

/**
 * Runs `pass` every intervalMs until the signal aborts; resolves then. A failed pass is logged and retried on the
 * next tick (the store may be briefly unavailable). `what` names the objects in the log ("expired events").
 */
export async function runPeriodicGc(deps: PeriodicGcDeps, what: string, pass: () => Promise<number>): Promise<void> {
  while (!deps.signal.aborted) {
    try {
      await deps.clock.sleep(deps.intervalMs, deps.signal);
    } catch (err) {
      if (isAbortError(err) || deps.signal.aborted) return;
      throw err;
    }
    try {
      const deleted = await pass();
      if (deleted > 0) deps.log.debug({ deleted }, `deleted ${what}`);
    } catch (err) {
      deps.log.warn({ err }, `garbage collection of ${what} failed; retrying at the next interval`);
    }
  }
}
