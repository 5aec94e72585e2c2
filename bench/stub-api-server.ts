// A stand-in API server for measuring the light fleet's own cost (bench/light-fleet-cost.ts): node:http, answers
// every create, update and read with a fresh resourceVersion (and nothing else), an empty node list and a
// watch that stays open; no storage, no validation. Prints "listening on URL" like the real server.
import { createServer } from 'node:http';

let rv = 1;
const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (req.method === 'GET' && url.startsWith('/api/v1/nodes?')) {
    if (url.includes('watch=')) {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      return; // stays open, silent
    }
    const list = JSON.stringify({ kind: 'NodeList', metadata: { resourceVersion: String(rv) }, items: [] });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(list) });
    res.end(list);
    return;
  }
  // Drain the body unread: the light fleet reads only the resourceVersion of the answer.
  req.resume();
  req.on('end', () => {
    const text = `{"metadata":{"resourceVersion":"${++rv}"}}`;
    res.writeHead(req.method === 'POST' ? 201 : 200, {
      'content-type': 'application/json',
      'content-length': text.length,
    });
    res.end(text);
  });
});
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address() as { port: number };
  process.stdout.write(`stub API server listening on http://127.0.0.1:${a.port}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => server.close(() => process.exit(0)));
