import type { FastifyInstance } from 'fastify';
import { deleteOptions, listOrWatch, type NameParams, type Query, type RouteContext } from './resource-routes.js';

/** `/api/v1/zones[/{name}]`: read by everyone, written by the node lifecycle controller. */
export function registerZoneRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const zones = ctx.registry.zones;
  app.get<{ Querystring: Query }>('/api/v1/zones', (request, reply) => listOrWatch(ctx, 'zones', request, reply));
  app.post('/api/v1/zones', async (request, reply) => {
    const created = await zones.create(request.body);
    return reply.code(201).send(created);
  });
  app.get<{ Params: NameParams }>('/api/v1/zones/:name', (request) => zones.get(request.params.name));
  app.put<{ Params: NameParams }>('/api/v1/zones/:name', (request) => zones.update(request.params.name, request.body));
  app.delete<{ Params: NameParams }>('/api/v1/zones/:name', (request) =>
    zones.delete(request.params.name, deleteOptions(request.body)),
  );
}
