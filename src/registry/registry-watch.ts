import { BadRequestError } from '../core/errors.js';
import { KIND_OF, type Resource, type ResourceTypes } from '../core/kinds.js';
import { namespaceKeyPrefix } from '../core/object-key.js';
import { batchedIterable, eventBatches } from '../store/event-batches.js';
import { parseRevision, type ListContinuation, type WatchOptions } from '../store/store.js';
import {
  compileFilter,
  DEFAULT_LIST_LIMIT,
  matchesFilter,
  type ListOptions,
  type ObjectFilter,
  type RegistryContext,
} from './registry-context.js';

export interface BookmarkObject {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string };
}

export type RegistryWatchEvent<T> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T } | { type: 'BOOKMARK'; object: BookmarkObject };

export interface RegistryWatchOptions extends ListOptions {
  /** Changes after this resourceVersion; undefined, "" or "0" first sends an ADDED for every current object. */
  resourceVersion?: string | undefined;
  allowWatchBookmarks?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** The store's watch fell too far behind (WatchOptions.onOverflow): told at once, not when next pulled. */
  onOverflow?: ((err: Error) => void) | undefined;
}

interface WatchPlan {
  resource: Resource;
  filter: ObjectFilter;
  from: number | undefined;
  bookmarks: boolean;
  signal: AbortSignal | undefined;
  onOverflow: ((err: Error) => void) | undefined;
}

/**
 * Validates the request now (a bad selector or resourceVersion throws BadRequestError before any stream is
 * opened), then returns the event stream. GoneError from the store (compacted history) is thrown by the iterator.
 */
export function watchObjects<R extends Resource>(
  ctx: RegistryContext,
  resource: R,
  options: RegistryWatchOptions = {},
): AsyncIterable<RegistryWatchEvent<ResourceTypes[R]>> {
  const filter = compileFilter(options);
  const rv = options.resourceVersion;
  let from: number | undefined;
  if (rv !== undefined && rv !== '' && rv !== '0') {
    from = parseRevision(rv);
    if (Number.isNaN(from)) {
      throw new BadRequestError(
        `resourceVersion "${rv}" is not a decimal revision: pass the resourceVersion of a list or an object`,
      );
    }
  }
  const plan: WatchPlan = {
    resource,
    filter,
    from,
    bookmarks: options.allowWatchBookmarks === true,
    signal: options.signal,
    onOverflow: options.onOverflow,
  };
  return batchedIterable(() => streamBatches(ctx, plan)) as AsyncIterable<RegistryWatchEvent<ResourceTypes[R]>>;
}

/**
 * Kubernetes' "resourceVersion unset or 0": the current state as ADDED events, read in pages at one revision (a
 * page at a time in memory, however large the kind), answering that revision: the watch continues after exactly
 * it, so nothing is missed or sent twice. GoneError when the list's pages expire under a reader that slow.
 */
async function* currentObjects(
  ctx: RegistryContext,
  plan: WatchPlan,
): AsyncGenerator<RegistryWatchEvent<unknown>[], number> {
  const ns = plan.filter.namespace;
  const prefix = ns === undefined ? {} : { prefix: namespaceKeyPrefix(ns) };
  let next: ListContinuation | undefined;
  let revision: number | undefined;
  do {
    const page = await ctx.store.list(plan.resource, {
      ...prefix,
      limit: DEFAULT_LIST_LIMIT,
      ...(next === undefined ? {} : { continueFrom: next }),
    });
    revision ??= page.revision;
    const batch: RegistryWatchEvent<unknown>[] = [];
    for (const object of page.items) {
      if (matchesFilter(plan.filter, object)) batch.push({ type: 'ADDED', object });
    }
    if (batch.length > 0) yield batch;
    next = page.continueFrom;
  } while (next !== undefined);
  return revision;
}

/** The watch as one array per batch of the store's stream (its batch path when it has one: see event-batches.ts). */
async function* streamBatches(ctx: RegistryContext, plan: WatchPlan): AsyncGenerator<RegistryWatchEvent<unknown>[]> {
  const { kind, apiVersion } = KIND_OF[plan.resource];
  const bookmark = (revision: number): RegistryWatchEvent<unknown> => ({
    type: 'BOOKMARK',
    object: { kind, apiVersion, metadata: { resourceVersion: String(revision) } },
  });
  const from = plan.from ?? (yield* currentObjects(ctx, plan));
  const watchOptions: WatchOptions = {};
  if (plan.signal !== undefined) watchOptions.signal = plan.signal;
  if (plan.onOverflow !== undefined) watchOptions.onOverflow = plan.onOverflow;
  // The store's progress notifications only come when the store stream is idle; they carry a revision every
  // earlier change has been delivered up to, so they are safe to forward as bookmarks.
  if (plan.bookmarks) watchOptions.progressIntervalMs = ctx.bookmarkIntervalMs;
  let lastSent = ctx.clock.monotonic();
  for await (const events of eventBatches(ctx.store.watch(plan.resource, from, watchOptions))) {
    // One reading of the clock per batch: a batch is handled synchronously.
    const now = ctx.clock.monotonic();
    const out: RegistryWatchEvent<unknown>[] = [];
    for (const ev of events) {
      if (ev.type === 'BOOKMARK') {
        if (!plan.bookmarks) continue;
        lastSent = now;
        out.push(bookmark(ev.revision));
      } else if (matchesFilter(plan.filter, ev.object)) {
        lastSent = now;
        out.push({ type: ev.type, object: ev.object });
      } else if (plan.bookmarks && now - lastSent >= ctx.bookmarkIntervalMs) {
        // Busy store, silent client (every change filtered out): still tell the client how far it has seen.
        lastSent = now;
        out.push(bookmark(ev.revision));
      }
    }
    if (out.length > 0) yield out;
  }
}
