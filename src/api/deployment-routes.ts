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
const BASE = '/apis/apps/v1/namespaces/:namespace/deployments';

/**
 * `/apis/apps/v1/deployments` (every namespace, read only) and
 * `/apis/apps/v1/namespaces/{ns}/deployments[/{name}[/status]]` (docs/api.md#deployments).
 */
export function registerDeploymentRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const deployments = ctx.registry.deployments;
  app.get<{ Querystring: Query }>('/apis/apps/v1/deployments', (request, reply) =>
    listOrWatch(ctx, 'deployments', request, reply),
  );
  app.get<{ Params: NamespaceParams; Querystring: Query }>(BASE, (request, reply) =>
    listOrWatch(ctx, 'deployments', request, reply, request.params.namespace),
  );
  app.post<{ Params: NamespaceParams }>(BASE, async (request, reply) => {
    const created = await deployments.create(request.params.namespace, request.body);
    return reply.code(201).send(created);
  });
  app.get<{ Params: ItemParams }>(`${BASE}/:name`, (request) =>
    deployments.get(request.params.namespace, request.params.name),
  );
  app.put<{ Params: ItemParams }>(`${BASE}/:name`, (request) =>
    deployments.update(request.params.namespace, request.params.name, request.body),
  );
  app.delete<{ Params: ItemParams; Querystring: Query }>(`${BASE}/:name`, (request) =>
    deployments.delete(request.params.namespace, request.params.name, deleteOptions(request.body, request.query)),
  );
  app.get<{ Params: ItemParams }>(`${BASE}/:name/status`, (request) =>
    deployments.get(request.params.namespace, request.params.name),
  );
  app.put<{ Params: ItemParams }>(`${BASE}/:name/status`, (request) =>
    deployments.updateStatus(request.params.namespace, request.params.name, request.body),
  );
}
