import { BadRequestError } from '../core/errors.js';
import { KIND_OF, type Resource, type ResourceTypes } from '../core/kinds.js';
import { namespaceKeyPrefix } from '../core/object-key.js';
import { parseRevision, type WatchOptions } from '../store/store.js';
import {
  compileFilter,
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
  return streamEvents(ctx, plan) as AsyncIterable<RegistryWatchEvent<ResourceTypes[R]>>;
}

async function* streamEvents(ctx: RegistryContext, plan: WatchPlan): AsyncGenerator<RegistryWatchEvent<unknown>> {
  const { kind, apiVersion } = KIND_OF[plan.resource];
  const bookmark = (revision: number): RegistryWatchEvent<unknown> => ({
    type: 'BOOKMARK',
    object: { kind, apiVersion, metadata: { resourceVersion: String(revision) } },
  });
  let from = plan.from;
  if (from === undefined) {
    // Kubernetes' "resourceVersion unset or 0": the current state as ADDED events, read at one revision,
    // then the changes after exactly that revision, so nothing is missed or sent twice.
    const ns = plan.filter.namespace;
    const list = await ctx.store.list(plan.resource, ns === undefined ? {} : { prefix: namespaceKeyPrefix(ns) });
    for (const object of list.items) {
      if (matchesFilter(plan.filter, object)) yield { type: 'ADDED', object };
    }
    from = list.revision;
  }
  const watchOptions: WatchOptions = {};
  if (plan.signal !== undefined) watchOptions.signal = plan.signal;
  if (plan.onOverflow !== undefined) watchOptions.onOverflow = plan.onOverflow;
  // The store's progress notifications only come when the store stream is idle; they carry a revision every
  // earlier change has been delivered up to, so they are safe to forward as bookmarks.
  if (plan.bookmarks) watchOptions.progressIntervalMs = ctx.bookmarkIntervalMs;
  let lastSent = ctx.clock.monotonic();
  for await (const ev of ctx.store.watch(plan.resource, from, watchOptions)) {
    if (ev.type === 'BOOKMARK') {
      if (!plan.bookmarks) continue;
      lastSent = ctx.clock.monotonic();
      yield bookmark(ev.revision);
    } else if (matchesFilter(plan.filter, ev.object)) {
      lastSent = ctx.clock.monotonic();
      yield { type: ev.type, object: ev.object };
    } else if (plan.bookmarks && ctx.clock.monotonic() - lastSent >= ctx.bookmarkIntervalMs) {
      // Busy store, silent client (every change filtered out): still tell the client how far it has seen.
      lastSent = ctx.clock.monotonic();
      yield bookmark(ev.revision);
    }
  }
}
