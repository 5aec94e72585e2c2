import type { FastifyInstance } from 'fastify';
import { deleteOptions, listOrWatch, type NameParams, type Query, type RouteContext } from './resource-routes.js';

/** `/api/v1/verdicts[/{name}]`: read by everyone, written by the node lifecycle controller (docs/api.md#verdicts). */
export function registerVerdictRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const verdicts = ctx.registry.verdicts;
  app.get<{ Querystring: Query }>('/api/v1/verdicts', (request, reply) => listOrWatch(ctx, 'verdicts', request, reply));
  app.post('/api/v1/verdicts', async (request, reply) => {
    const created = await verdicts.create(request.body);
    return reply.code(201).send(created);
  });
  app.get<{ Params: NameParams }>('/api/v1/verdicts/:name', (request) => verdicts.get(request.params.name));
  app.put<{ Params: NameParams }>('/api/v1/verdicts/:name', (request) =>
    verdicts.update(request.params.name, request.body),
  );
  app.delete<{ Params: NameParams; Querystring: Query }>('/api/v1/verdicts/:name', (request) =>
    verdicts.delete(request.params.name, deleteOptions(request.body, request.query)),
  );
}
