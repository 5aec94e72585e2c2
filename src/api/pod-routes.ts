import type { FastifyInstance } from 'fastify';
import {
  deleteOptions,
  listOrWatch,
  type NameParams,
  type NamespaceParams,
  type Query,
  type RouteContext,
} from './resource-routes.js';

type ItemParams = NamespaceParams & NameParams;
const BASE = '/api/v1/namespaces/:namespace/pods';

/**
 * `/api/v1/pods` (every namespace, read only) and `/api/v1/namespaces/{ns}/pods[/{name}[/status|/binding]]`
 * (docs/api.md#pods).
 */
export function registerPodRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const pods = ctx.registry.pods;
  app.get<{ Querystring: Query }>('/api/v1/pods', (request, reply) => listOrWatch(ctx, 'pods', request, reply));
  app.get<{ Params: NamespaceParams; Querystring: Query }>(BASE, (request, reply) =>
    listOrWatch(ctx, 'pods', request, reply, request.params.namespace),
  );
  app.post<{ Params: NamespaceParams }>(BASE, async (request, reply) => {
    const created = await pods.create(request.params.namespace, request.body);
    return reply.code(201).send(created);
  });
  app.get<{ Params: ItemParams }>(`${BASE}/:name`, (request) =>
    pods.get(request.params.namespace, request.params.name),
  );
  app.put<{ Params: ItemParams }>(`${BASE}/:name`, (request) =>
    pods.update(request.params.namespace, request.params.name, request.body),
  );
  app.delete<{ Params: ItemParams; Querystring: Query }>(`${BASE}/:name`, (request) =>
    pods.delete(request.params.namespace, request.params.name, deleteOptions(request.body, request.query)),
  );
  app.get<{ Params: ItemParams }>(`${BASE}/:name/status`, (request) =>
    pods.get(request.params.namespace, request.params.name),
  );
  app.put<{ Params: ItemParams }>(`${BASE}/:name/status`, (request) =>
    pods.updateStatus(request.params.namespace, request.params.name, request.body),
  );
  app.post<{ Params: ItemParams }>(`${BASE}/:name/binding`, async (request, reply) => {
    const bound = await pods.bind(request.params.namespace, request.params.name, request.body);
    return reply.code(201).send(bound);
  });
}
