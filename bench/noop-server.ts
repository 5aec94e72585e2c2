// Baseline for the renewal benchmark: a fastify PUT route that parses the JSON body and answers a JSON body
// of the same shape, doing no storage at all. Prints "listening on URL" like the real server.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
let rv = 0;
app.put('/api/v1/leases/:name', async (req) => {
  const body = req.body as { metadata: Record<string, unknown> };
  return { ...body, metadata: { ...body.metadata, resourceVersion: String(++rv) } };
});
const addr = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`noop server listening on ${addr}\n`);
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => void app.close().then(() => process.exit(0)));
