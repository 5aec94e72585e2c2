import { createServer } from 'node:http';
import type { Registry } from 'prom-client';
import { parseListen } from '../config/flag-parsers.js';
import type { Logger } from '../core/logger.js';

/**
 * `--health-probe-bind-address` for agent, controller and fleet modes: /healthz, /readyz and /metrics on a
 * plain node:http server (the API server's fastify is not needed here). Undefined when the flag is absent.
 */
export async function serveProbes(
  address: string | undefined,
  deps: { ready: () => boolean; log: Logger },
): Promise<{ metrics: Registry; close(): Promise<void>; url: string } | undefined> {
  if (!address) return undefined;
  const { host, port } = parseListen(address);
  // Loaded only when probes are asked for: prom-client costs an idle agent ~12 MB.
  const { collectDefaultMetrics, Registry: PromRegistry } = await import('prom-client');
  const metrics = new PromRegistry();
  collectDefaultMetrics({ register: metrics });
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    } else if (path === '/readyz') {
      const ok = deps.ready();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'not ready');
    } else if (path === '/metrics') {
      metrics.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(port, host, () => res());
  });
  const addr = server.address();
  const url = `http://${host}:${typeof addr === 'object' && addr ? addr.port : port}`;
  deps.log.info({ url }, 'serving /healthz, /readyz and /metrics');
  return {
    metrics,
    url,
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
}
