import type { FastifyRequest } from 'fastify';
import { isResource } from '../core/kinds.js';
import { NODE_LEASE_NAMESPACE } from '../core/lease.js';
import type { RequestAttributes, Verb } from './authorization.js';

const ROUTE_RE = /^\/api\/v1\/(?:namespaces\/:namespace\/)?([a-z]+)(\/:name)?(?:\/([a-z]+))?$/;

function isWatch(query: unknown): boolean {
  const raw = (query as Record<string, unknown> | undefined)?.['watch'];
  const v = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return v === 'true' || v === '1';
}

function verbOf(method: string, named: boolean, query: unknown): Verb | undefined {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (named) return 'get';
      return isWatch(query) ? 'watch' : 'list';
    case 'POST':
      return named ? undefined : 'create';
    case 'PUT':
      return named ? 'update' : undefined;
    case 'DELETE':
      return named ? 'delete' : undefined;
    default:
      return undefined;
  }
}

/**
 * Kubernetes' RequestInfo: what a matched `/api/v1/...` route asks to do, from the route pattern and its
 * params (never from the raw URL, so encoded or doubled slashes cannot disguise a path). Undefined for routes
 * that are not resource routes (unmatched URLs get their 404 after authentication).
 */
export function requestAttributes(request: FastifyRequest): RequestAttributes | undefined {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return undefined;
  const m = ROUTE_RE.exec(pattern);
  if (!m || !isResource(m[1] as string)) return undefined;
  const resource = m[1] as RequestAttributes['resource'];
  const params = (request.params ?? {}) as { name?: string; namespace?: string };
  const named = m[2] !== undefined;
  const verb = verbOf(request.method, named, request.query);
  if (verb === undefined) return undefined;
  return {
    verb,
    resource,
    namespace: resource === 'leases' ? (params.namespace ?? NODE_LEASE_NAMESPACE) : undefined,
    name: named ? params.name : undefined,
    subresource: m[3],
  };
}
