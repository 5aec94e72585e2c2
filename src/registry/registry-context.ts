import { formatTime, type Clock } from '../core/clock.js';
import { ConflictError } from '../core/errors.js';
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
import type { Store } from '../store/store.js';
import type { PodAdmission } from './pod-strategy.js';

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

export interface ListOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** Leases only: the namespace to list (all namespaces when omitted). */
  namespace?: string | undefined;
}

export interface ListResponse<T> {
  items: T[];
  resourceVersion: string;
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

export async function listObjects<R extends Resource>(
  ctx: RegistryContext,
  resource: R,
  options: ListOptions = {},
): Promise<ListResponse<ResourceTypes[R]>> {
  const filter = compileFilter(options);
  const prefix = filter.namespace === undefined ? undefined : namespaceKeyPrefix(filter.namespace);
  const { items, revision } = await ctx.store.list(resource, prefix === undefined ? {} : { prefix });
  const matching =
    filter.labels.length === 0 && filter.fields.length === 0 && filter.namespace === undefined
      ? items
      : items.filter((o) => matchesFilter(filter, o));
  return { items: matching, resourceVersion: String(revision) };
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
 * an early Conflict when the precondition is already stale, then the store's compare-and-swap.
 */
export async function replaceObject<R extends Resource>(
  ctx: RegistryContext,
  resource: R,
  key: string,
  expectedResourceVersion: string,
  build: (current: ResourceTypes[R]) => ResourceTypes[R],
): Promise<ResourceTypes[R]> {
  const current = await ctx.store.get(resource, key);
  if (current.metadata.resourceVersion !== expectedResourceVersion) {
    throw new ConflictError(resource, current.metadata.name);
  }
  return ctx.store.update(resource, build(current), expectedResourceVersion);
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
