import { formatTime, type Clock } from '../core/clock.js';
import { ConflictError, GoneError } from '../core/errors.js';
import type { Resource, ResourceTypes } from '../core/kinds.js';
import type { Logger } from '../core/logger.js';
import type { ObjectMeta } from '../core/meta.js';
import { namespaceKeyPrefix } from '../core/object-key.js';
import type { Random } from '../core/random.js';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldRequirement,
  type Requirement,
} from '../core/selectors.js';
import type { ListContinuation, Store, WriteOptions } from '../store/store.js';
import type { PodAdmission } from './pod-strategy.js';
import { decodeContinueToken, encodeContinueToken } from './continue-token.js';

export interface RegistryDeps {
  store: Store;
  clock: Clock;
  random: Random;
  log?: Logger;
  /** How long a filtered watch may stay silent before it gets a BOOKMARK (docs/api.md: at least once a second). */
  bookmarkIntervalMs?: number;
  /** The default NoExecute tolerations pods get on create and update (docs/api.md#admission). */
  podAdmission?: PodAdmission;
}

export interface RegistryContext {
  store: Store;
  clock: Clock;
  random: Random;
  log: Logger;
  bookmarkIntervalMs: number;
  podAdmission: PodAdmission;
}

/** Items in a list answer when the client names no limit (docs/api.md#paging). */
export const DEFAULT_LIST_LIMIT = 500;
/** The largest page the server answers; a larger limit is lowered to it. */
export const MAX_LIST_LIMIT = 10_000;
/** Objects one answer reads at most while selectors filter out most of them: then it is shorter than its limit. */
const SCAN_BUDGET = MAX_LIST_LIMIT;
/** Store reads one answer makes at most to fill its page. */
const MAX_PAGE_READS = 16;
/** Page size of the store reads of a whole list (an in-process caller that names no limit). */
const WHOLE_LIST_CHUNK = 1000;
/** A whole list restarts this often when its pages expire under it (410) before the error is passed on. */
const WHOLE_LIST_ATTEMPTS = 3;

export interface ListOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** Leases only: the namespace to list (all namespaces when omitted). */
  namespace?: string | undefined;
  /**
   * At most this many items (lowered to MAX_LIST_LIMIT), with `continue` in the answer while more remain. Absent:
   * every matching object, read in pages at one revision (in-process callers; the API always pages).
   */
  limit?: number | undefined;
  /** The `continue` of the previous answer: the next page, at that answer's resourceVersion. */
  continue?: string | undefined;
}

export interface ListResponse<T> {
  items: T[];
  resourceVersion: string;
  /** Set when more items remain: pass it back as `continue`. */
  continue?: string;
}

export interface DeleteOptions {
  /** Delete only if the object is still at this resourceVersion (Kubernetes preconditions). */
  expectedResourceVersion?: string | undefined;
  /** Pods only: 0 removes at once; otherwise a pod on a node is deleted gracefully (docs/api.md#graceful-deletion). */
  gracePeriodSeconds?: number | undefined;
}

/** Parsed label and field selectors plus an optional namespace, applied to every listed or watched object. */
export interface ObjectFilter {
  labels: Requirement[];
  fields: FieldRequirement[];
  namespace: string | undefined;
}

/** Throws BadRequestError for a malformed selector, before anything is read. */
export function compileFilter(options: ListOptions): ObjectFilter {
  return {
    labels: parseLabelSelector(options.labelSelector),
    fields: parseFieldSelector(options.fieldSelector),
    namespace: options.namespace,
  };
}

export function matchesFilter(
  filter: ObjectFilter,
  obj: { metadata: { labels?: Record<string, string>; namespace?: string } },
): boolean {
  if (filter.namespace !== undefined && obj.metadata.namespace !== filter.namespace) return false;
  return matchesLabels(filter.labels, obj.metadata.labels) && matchesFields(filter.fields, obj);
}

/**
 * A list with selectors, in pages (docs/api.md#paging): every page is read at the first page's revision, and
 * selectors filter within pages, so a page may hold fewer items than its limit while `continue` is set.
 */
export async function listObjects<R extends Resource>(
  ctx: RegistryContext,
  resource: R,
  options: ListOptions = {},
): Promise<ListResponse<ResourceTypes[R]>> {
  const filter = compileFilter(options);
  const prefix = filter.namespace === undefined ? '' : namespaceKeyPrefix(filter.namespace);
  const token = options.continue;
  const from = token === undefined || token === '' ? undefined : decodeContinueToken(token, resource, prefix);
  if (options.limit === undefined && from === undefined) return listWhole(ctx, resource, filter, prefix);
  const limit = Math.min(Math.max(Math.floor(options.limit ?? DEFAULT_LIST_LIMIT), 1), MAX_LIST_LIMIT);
  const page = await listPage(ctx, resource, filter, prefix, limit, from);
  const answer: ListResponse<ResourceTypes[R]> = { items: page.items, resourceVersion: String(page.revision) };
  if (page.next !== undefined) answer.continue = encodeContinueToken(resource, page.next);
  return answer;
}

function isUnfiltered(filter: ObjectFilter): boolean {
  return filter.labels.length === 0 && filter.fields.length === 0;
}

/**
 * One answer's page. Each store read asks for exactly the items still missing, so the answer ends where a store
 * page ends and its continuation is one the store handed out (the SQLite store keeps a list's snapshot by them).
 */
async function listPage<R extends Resource>(
  ctx: RegistryContext,
  resource: R,
  filter: ObjectFilter,
  prefix: string,
  limit: number,
  from: ListContinuation | undefined,
): Promise<{ items: ResourceTypes[R][]; revision: number; next: ListContinuation | undefined }> {
  const items: ResourceTypes[R][] = [];
  const unfiltered = isUnfiltered(filter);
  let next = from;
  let revision = from?.revision;
  let scanned = 0;
  for (let reads = 1; ; reads++) {
    const page = await ctx.store.list(resource, {
      ...(prefix === '' ? {} : { prefix }),
      limit: limit - items.length,
      ...(next === undefined ? {} : { continueFrom: next }),
    });
    revision ??= page.revision;
    for (const obj of page.items) if (unfiltered || matchesFilter(filter, obj)) items.push(obj);
    scanned += page.items.length;
    next = page.continueFrom;
    if (next === undefined || items.length >= limit || scanned >= SCAN_BUDGET || reads >= MAX_PAGE_READS) {
      return { items, revision, next };
    }
  }
}

/** Every matching object at one revision, read in pages so no single read holds up the event loop. */
async function listWhole<R extends Resource>(
  ctx: RegistryContext,
  resource: R,
  filter: ObjectFilter,
  prefix: string,
): Promise<ListResponse<ResourceTypes[R]>> {
  for (let attempt = 1; ; attempt++) {
    const items: ResourceTypes[R][] = [];
    let from: ListContinuation | undefined;
    try {
      let revision: number | undefined;
      do {
        const page = await listPage(ctx, resource, filter, prefix, WHOLE_LIST_CHUNK, from);
        revision ??= page.revision;
        for (const obj of page.items) items.push(obj);
        from = page.next;
      } while (from !== undefined);
      return { items, resourceVersion: String(revision) };
    } catch (err) {
      // A snapshot that expired under a slow whole list: start again, as a paging client would.
      if (!(err instanceof GoneError) || attempt >= WHOLE_LIST_ATTEMPTS) throw err;
      ctx.log.debug({ resource, attempt }, 'a whole list expired under it; listing again');
    }
  }
}

/** Server-set metadata of a new object: uid and creationTimestamp; client-sent uid/resourceVersion are ignored. */
export function newMeta(
  ctx: RegistryContext,
  input: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> },
): ObjectMeta {
  const meta: ObjectMeta = {
    name: input.name,
    uid: ctx.random.uuid(),
    resourceVersion: '',
    creationTimestamp: formatTime(ctx.clock.now()),
  };
  if (input.labels !== undefined) meta.labels = input.labels;
  if (input.annotations !== undefined) meta.annotations = input.annotations;
  return meta;
}

/** Metadata for a replacement: identity from the stored object, labels/annotations from the client. */
export function replacedMeta(
  current: ObjectMeta,
  input: { labels?: Record<string, string> | undefined; annotations?: Record<string, string> | undefined },
): ObjectMeta {
  const meta: ObjectMeta = {
    name: current.name,
    uid: current.uid,
    resourceVersion: current.resourceVersion,
    creationTimestamp: current.creationTimestamp,
  };
  if (current.namespace !== undefined) meta.namespace = current.namespace;
  if (input.labels !== undefined) meta.labels = input.labels;
  if (input.annotations !== undefined) meta.annotations = input.annotations;
  return meta;
}

/**
 * Optimistic-locking replace (Kubernetes GuaranteedUpdate without the retry): one read for the identity fields,
 * an early Conflict when the precondition is already stale, then the store's compare-and-swap; or the store's
 * own `replace`, which may skip the read (Store#replace).
 */
export async function replaceObject<R extends Resource>(
  ctx: RegistryContext,
  resource: R,
  key: string,
  expectedResourceVersion: string,
  build: (current: ResourceTypes[R]) => ResourceTypes[R],
  options: WriteOptions = {},
): Promise<ResourceTypes[R]> {
  if (ctx.store.replace !== undefined) return ctx.store.replace(resource, key, expectedResourceVersion, build);
  const current = await ctx.store.get(resource, key);
  if (current.metadata.resourceVersion !== expectedResourceVersion) {
    throw new ConflictError(resource, current.metadata.name);
  }
  return ctx.store.update(resource, build(current), expectedResourceVersion, options);
}

export function deleteObject<R extends Resource>(
  ctx: RegistryContext,
  resource: R,
  key: string,
  options?: DeleteOptions,
): Promise<ResourceTypes[R]> {
  const rv = options?.expectedResourceVersion;
  return ctx.store.delete(resource, key, rv === undefined || rv === '' ? {} : { expectedResourceVersion: rv });
}
