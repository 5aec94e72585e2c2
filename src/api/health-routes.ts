import type { FastifyInstance } from 'fastify';
import { ServiceUnavailableError, shuttingDownError } from '../core/errors.js';
import type { Store } from '../store/store.js';
import type { ApiMetrics } from './metrics.js';

export interface HealthState {
  /** Set by markNotReady() (shutdown begins) : /readyz answers 503 from then on. */
  notReady: boolean;
}

export interface HealthDeps {
  store: Store;
  metrics: ApiMetrics;
  state: HealthState;
  version: string;
  gitCommit: string | undefined;
}

/** `/healthz` (process alive), `/readyz` (store answers, not shutting down), `/version`, `/metrics`. */
export function registerHealthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  app.get('/healthz', (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok'));
  app.get('/readyz', async (_request, reply) => {
    if (deps.state.notReady) throw shuttingDownError();
    try {
      await deps.store.checkHealth();
    } catch (err) {
      if (err instanceof ServiceUnavailableError) throw err;
      throw new ServiceUnavailableError('the store is not answering: check the server log and the data directory', {
        cause: err,
      });
    }
    return reply.type('text/plain; charset=utf-8').send('ok');
  });
  app.get('/version', () => {
    const info: { version: string; gitCommit?: string; storage: string } = {
      version: deps.version,
      storage: deps.store.kind,
    };
    if (deps.gitCommit !== undefined) info.gitCommit = deps.gitCommit;
    return info;
  });
  app.get('/metrics', async (_request, reply) => {
    try {
      deps.metrics.revision.set(await deps.store.currentRevision());
    } catch {
      // A closed store leaves the gauge at its last value; /readyz reports the outage.
    }
    const body = await deps.metrics.register.metrics();
    return reply.type(deps.metrics.register.contentType).send(body);
  });
}
