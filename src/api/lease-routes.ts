import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NODE_LEASE_NAMESPACE } from '../core/lease.js';
import type { LeaseRegistry } from '../registry/lease-registry.js';
import type { Store } from '../store/store.js';
import { NODE_READY_HEADER } from './node-ready-index.js';
import {
  deleteOptions,
  listOrWatch,
  type NameParams,
  type NamespaceParams,
  type Query,
  type RouteContext,
} from './resource-routes.js';

type NsRequest = FastifyRequest<{ Params: Partial<NamespaceParams> & Partial<NameParams>; Querystring: Query }>;

/** `/api/v1/leases[...]` is the `node-lease` namespace; `/api/v1/namespaces/{ns}/leases[...]` any namespace. */
function namespaceOf(request: NsRequest): string {
  return request.params.namespace ?? NODE_LEASE_NAMESPACE;
}

/**
 * Handlers are built once, not per request: the lease PUT is the fleet's hot path (every agent renews every
 * few seconds), so it does one parse, one read and one write, and nothing else.
 */
function handlers(ctx: RouteContext, leases: LeaseRegistry) {
  const { store } = ctx.registry;
  const sendObject = (reply: FastifyReply, obj: object): FastifyReply => sendStored(store, reply, obj);
  return {
    list: (request: NsRequest, reply: FastifyReply) => listOrWatch(ctx, 'leases', request, reply, namespaceOf(request)),
    create: async (request: NsRequest, reply: FastifyReply) => {
      const created = await leases.create(namespaceOf(request), request.body);
      return sendObject(reply.code(201), created);
    },
    get: async (request: NsRequest, reply: FastifyReply) =>
      sendObject(reply, await leases.get(namespaceOf(request), request.params.name as string)),
    update: async (request: NsRequest, reply: FastifyReply) => {
      const namespace = namespaceOf(request);
      const name = request.params.name as string;
      const lease = await leases.update(namespace, name, request.body);
      // One Map lookup: tells a renewing agent its Node is not Ready (docs/node-lifecycle.md#agent-heal).
      const ready = namespace === NODE_LEASE_NAMESPACE ? ctx.nodeReady?.statusOf(name) : undefined;
      if (ready !== undefined) reply.header(NODE_READY_HEADER, ready);
      return sendObject(reply, lease);
    },
    delete: (request: NsRequest) =>
      leases.delete(namespaceOf(request), request.params.name as string, deleteOptions(request.body)),
  };
}

/** Sends a stored object as the JSON text the store already built for it (the same bytes fastify would send). */
function sendStored(store: Pick<Store, 'encodedJson'>, reply: FastifyReply, obj: object): FastifyReply {
  const json = store.encodedJson(obj);
  return json === undefined ? reply.send(obj) : reply.type('application/json; charset=utf-8').send(json);
}

export function registerLeaseRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const h = handlers(ctx, ctx.registry.leases);
  for (const base of ['/api/v1/leases', '/api/v1/namespaces/:namespace/leases']) {
    app.get(base, h.list);
    app.post(base, h.create);
    app.get(`${base}/:name`, h.get);
    app.put(`${base}/:name`, h.update);
    app.delete(`${base}/:name`, h.delete);
  }
}
