import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError } from '../core/errors.js';
import { KIND_OF, type Resource } from '../core/kinds.js';
import type { Registry } from '../registry/registry.js';
import type { DeleteOptions } from '../registry/registry-context.js';
import { parseRevision } from '../store/store.js';
import type { WatchStreams } from './ndjson-watch.js';

/** What every routes file needs. */
export interface RouteContext {
  registry: Registry;
  watches: WatchStreams;
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

/**
 * GET on a collection: a list (`{apiVersion, kind: <Kind>List, metadata: {resourceVersion}, items}`), or with
 * `?watch=true|1` an NDJSON watch stream.
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
  const list = await ctx.registry.list(resource, { labelSelector, fieldSelector, namespace });
  const { apiVersion, listKind } = KIND_OF[resource];
  return { apiVersion, kind: listKind, metadata: { resourceVersion: list.resourceVersion }, items: list.items };
}

/** Kubernetes DeleteOptions: `{ preconditions: { resourceVersion } }` in an optional DELETE body. */
export function deleteOptions(body: unknown): DeleteOptions | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const pre = (body as { preconditions?: unknown }).preconditions;
  if (typeof pre !== 'object' || pre === null) return undefined;
  const rv = (pre as { resourceVersion?: unknown }).resourceVersion;
  return typeof rv === 'string' ? { expectedResourceVersion: rv } : undefined;
}
