import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError } from '../core/errors.js';
import { KIND_OF, type Resource } from '../core/kinds.js';
import type { Registry } from '../registry/registry.js';
import { DEFAULT_LIST_LIMIT, type DeleteOptions } from '../registry/registry-context.js';
import { listBodyStream, type ListHead } from './list-body.js';
import { parseRevision } from '../store/store.js';
import type { WatchStreams } from './ndjson-watch.js';
import type { NodeReadyIndex } from './node-ready-index.js';

/** What every routes file needs. */
export interface RouteContext {
  registry: Registry;
  watches: WatchStreams;
  /** Nodes that are not Ready, for the lease renewal's `shepherd-node-ready` header (node-ready-index.ts). */
  nodeReady?: NodeReadyIndex;
}

export type Query = Record<string, string | string[] | undefined>;
export interface NameParams {
  name: string;
}
export interface NamespaceParams {
  namespace: string;
}

/** The last value of a repeated query parameter. */
export function queryValue(query: Query, key: string): string | undefined {
  const v = query[key];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function queryFlag(query: Query, key: string): boolean {
  const v = queryValue(query, key);
  return v === 'true' || v === '1';
}

function timeoutSeconds(query: Query): number | undefined {
  const v = queryValue(query, 'timeoutSeconds');
  if (v === undefined || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw new BadRequestError(`timeoutSeconds "${v}" must be a whole number of seconds`);
  return Number(v);
}

/** `limit`: a whole number; absent, empty or 0 is DEFAULT_LIST_LIMIT (the registry lowers one above the maximum). */
function listLimit(query: Query): number {
  const v = queryValue(query, 'limit');
  if (v === undefined || v === '') return DEFAULT_LIST_LIMIT;
  if (!/^\d{1,15}$/.test(v)) throw new BadRequestError(`limit "${v}" must be a whole number of items`);
  return Number(v) === 0 ? DEFAULT_LIST_LIMIT : Number(v);
}

/**
 * GET on a collection: a page of the list (`{apiVersion, kind: <Kind>List, metadata: {resourceVersion, continue?},
 * items}`, docs/api.md#paging), or with `?watch=true|1` an NDJSON watch stream.
 */
export async function listOrWatch(
  ctx: RouteContext,
  resource: Resource,
  request: FastifyRequest<{ Querystring: Query }>,
  reply: FastifyReply,
  namespace?: string,
): Promise<unknown> {
  const query = request.query;
  const labelSelector = queryValue(query, 'labelSelector');
  const fieldSelector = queryValue(query, 'fieldSelector');
  if (queryFlag(query, 'watch')) {
    const timeout = timeoutSeconds(query);
    const resourceVersion = queryValue(query, 'resourceVersion');
    const allowWatchBookmarks = queryFlag(query, 'allowWatchBookmarks');
    const from = parseRevision(resourceVersion);
    // Before the 200: a watch from a revision the store has not reached is answered 504 with Retry-After.
    if (from > 0) await ctx.registry.waitForRevision(from);
    return ctx.watches.serve(request, reply, {
      resource,
      timeoutSeconds: timeout,
      events: (signal, onOverflow) =>
        ctx.registry.watch(resource, {
          resourceVersion,
          labelSelector,
          fieldSelector,
          allowWatchBookmarks,
          signal,
          namespace,
          onOverflow,
        }),
    });
  }
  const limit = listLimit(query);
  const token = queryValue(query, 'continue');
  const list = await ctx.registry.list(resource, { labelSelector, fieldSelector, namespace, limit, continue: token });
  const { apiVersion, listKind } = KIND_OF[resource];
  const head: ListHead = { apiVersion, kind: listKind, metadata: { resourceVersion: list.resourceVersion } };
  if (list.continue !== undefined) head.metadata.continue = list.continue;
  // The page is read whole before the answer starts (its status is known), then sent as a stream of chunks.
  return reply.type('application/json; charset=utf-8').send(listBodyStream(ctx.registry.store, head, list.items));
}

/** `gracePeriodSeconds` from the query (a string) or the body (a number): a whole number of seconds, 0 or more. */
function gracePeriodSeconds(query: Query | undefined, body: unknown): number | undefined {
  const q = query === undefined ? undefined : queryValue(query, 'gracePeriodSeconds');
  const b =
    typeof body === 'object' && body !== null
      ? (body as { gracePeriodSeconds?: unknown }).gracePeriodSeconds
      : undefined;
  const v = q !== undefined && q !== '' ? q : b;
  if (v === undefined) return undefined;
  if ((typeof v === 'string' && /^\d{1,9}$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) {
    return Number(v);
  }
  throw new BadRequestError(`gracePeriodSeconds "${String(v)}" must be a whole number of seconds, 0 or more`);
}

/**
 * Kubernetes DeleteOptions: `{ preconditions: { resourceVersion }, gracePeriodSeconds }` in an optional DELETE body,
 * and `?gracePeriodSeconds=` in the query (which wins over the body). Only pods use the grace period.
 */
export function deleteOptions(body: unknown, query?: Query): DeleteOptions | undefined {
  const options: DeleteOptions = {};
  const grace = gracePeriodSeconds(query, body);
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  const pre =
    typeof body === 'object' && body !== null ? (body as { preconditions?: unknown }).preconditions : undefined;
  const rv =
    typeof pre === 'object' && pre !== null ? (pre as { resourceVersion?: unknown }).resourceVersion : undefined;
  if (typeof rv === 'string') options.expectedResourceVersion = rv;
  return Object.keys(options).length === 0 ? undefined : options;
}
