import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { ApiMetrics } from '../../src/api/metrics.js';
import { WatchStreams } from '../../src/api/ndjson-watch.js';
import { FakeClock } from '../support/fake-clock.js';

/**
 * A bare fastify app and a WatchStreams with no store behind it (events are the test's own), for the tests of the
 * watch stream itself: register a route that calls `watches.serve`, then `listenOnLoopback`.
 */
export function watchStreamsApp(): { app: FastifyInstance; watches: WatchStreams } {
  const app = Fastify({ logger: false });
  const watches = new WatchStreams({
    clock: new FakeClock(),
    metrics: new ApiMetrics({ defaultMetrics: false }),
    store: { encodedJson: () => undefined },
  });
  app.addHook('preClose', async () => watches.endAll());
  return { app, watches };
}

/** Listens on 127.0.0.1 at a free port and returns it. */
export async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  assert.ok(addr !== null && typeof addr === 'object');
  return addr.port;
}
