import type { FastifyRequest } from 'fastify';
import { isResource, KIND_OF } from '../core/kinds.js';
import { NODE_LEASE_NAMESPACE } from '../core/lease.js';
import type { RequestAttributes, Verb } from './authorization.js';

/** `/api/v1/…` (the core group) and `/apis/apps/v1/…` (Deployments), each optionally under `namespaces/:namespace`. */
const ROUTE_RE = /^\/(?:api\/v1|apis\/apps\/v1)\/(?:namespaces\/:namespace\/)?([a-z]+)(\/:name)?(?:\/([a-z]+))?$/;

/** The resource API: the core group under `/api/`, the named groups (apps) under `/apis/`. */
export function isApiPath(url: string): boolean {
  return url.startsWith('/api/') || url.startsWith('/apis/');
}

function isWatch(query: unknown): boolean {
  const raw = (query as Record<string, unknown> | undefined)?.['watch'];
  const v = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return v === 'true' || v === '1';
}

function verbOf(method: string, named: boolean, subresource: string | undefined, query: unknown): Verb | undefined {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (named) return 'get';
      return isWatch(query) ? 'watch' : 'list';
    case 'POST':
      // A POST to an object's subresource (a pod's binding) creates that subresource, as in Kubernetes.
      if (named) return subresource === undefined ? undefined : 'create';
      return 'create';
    case 'PUT':
      return named ? 'update' : undefined;
    case 'DELETE':
      return named ? 'delete' : undefined;
    default:
      return undefined;
  }
}

/**
 * Kubernetes' RequestInfo: what a matched resource route asks to do, from the route pattern and its params (never
 * from the raw URL, so encoded or doubled slashes cannot disguise a path). Undefined for routes that are not
 * resource routes (unmatched URLs get their 404 after authentication).
 */
export function requestAttributes(request: FastifyRequest): RequestAttributes | undefined {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return undefined;
  const m = ROUTE_RE.exec(pattern);
  if (!m || !isResource(m[1] as string)) return undefined;
  const resource = m[1] as RequestAttributes['resource'];
  const params = (request.params ?? {}) as { name?: string; namespace?: string };
  const named = m[2] !== undefined;
  const verb = verbOf(request.method, named, m[3], request.query);
  if (verb === undefined) return undefined;
  const namespace = KIND_OF[resource].namespaced
    ? (params.namespace ?? (resource === 'leases' ? NODE_LEASE_NAMESPACE : undefined))
    : undefined;
  return { verb, resource, namespace, name: named ? params.name : undefined, subresource: m[3] };
}
