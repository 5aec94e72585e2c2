import type { FastifyInstance } from 'fastify';
import { deleteOptions, listOrWatch, type NameParams, type Query, type RouteContext } from './resource-routes.js';

/** `/api/v1/nodes[/{name}[/status]]`. */
export function registerNodeRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const nodes = ctx.registry.nodes;
  app.get<{ Querystring: Query }>('/api/v1/nodes', (request, reply) => listOrWatch(ctx, 'nodes', request, reply));
  app.post('/api/v1/nodes', async (request, reply) => {
    const created = await nodes.create(request.body);
    return reply.code(201).send(created);
  });
  app.get<{ Params: NameParams }>('/api/v1/nodes/:name', (request) => nodes.get(request.params.name));
  app.put<{ Params: NameParams }>('/api/v1/nodes/:name', (request) => nodes.update(request.params.name, request.body));
  app.delete<{ Params: NameParams }>('/api/v1/nodes/:name', (request) =>
    nodes.delete(request.params.name, deleteOptions(request.body)),
  );
  app.get<{ Params: NameParams }>('/api/v1/nodes/:name/status', (request) => nodes.get(request.params.name));
  app.put<{ Params: NameParams }>('/api/v1/nodes/:name/status', (request) =>
    nodes.updateStatus(request.params.name, request.body),
  );
}
