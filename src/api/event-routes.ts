import type { FastifyInstance } from 'fastify';
import { deleteOptions, listOrWatch, type NameParams, type Query, type RouteContext } from './resource-routes.js';

/** `/api/v1/events[/{name}]`: list (with fieldSelector), create (folding repeats), get, update, delete. */
export function registerEventRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const events = ctx.registry.events;
  app.get<{ Querystring: Query }>('/api/v1/events', (request, reply) => listOrWatch(ctx, 'events', request, reply));
  app.post('/api/v1/events', async (request, reply) => {
    const created = await events.create(request.body);
    return reply.code(201).send(created);
  });
  app.get<{ Params: NameParams }>('/api/v1/events/:name', (request) => events.get(request.params.name));
  app.put<{ Params: NameParams }>('/api/v1/events/:name', (request) =>
    events.update(request.params.name, request.body),
  );
  app.delete<{ Params: NameParams }>('/api/v1/events/:name', (request) =>
    events.delete(request.params.name, deleteOptions(request.body)),
  );
}
