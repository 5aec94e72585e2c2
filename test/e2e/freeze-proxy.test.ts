import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { FreezeProxy } from '../support/freeze-proxy.js';
import { eventually } from '../support/eventually.js';

// The fault injector of the breaker drills must do exactly what it says: hold watch bytes (connection open),
// deliver them on unfreeze, and never touch other requests. An upstream that streams a counter stands in for
// the API server.
describe('FreezeProxy', () => {
  let upstream: Server;
  let proxy: FreezeProxy;
  const streams = new Set<ServerResponse>();
  let written = 0;
  /** Waits until the upstream wrote n more lines (over all streams): the stream time a check spans. */
  const upstreamWrites = (n: number): Promise<unknown> => {
    const target = written + n;
    return eventually(() => written >= target, { what: `the upstream writing ${n} more lines`, last: () => written });
  };

  before(async () => {
    upstream = createServer((req, res) => {
      if (!req.url?.includes('watch=')) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ path: req.url, method: req.method }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      streams.add(res);
      let n = 0;
      const timer = setInterval(() => (res.write(`${JSON.stringify({ n: n++ })}\n`), written++), 20);
      res.once('close', () => (clearInterval(timer), streams.delete(res)));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    proxy = await FreezeProxy.start(`127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  });

  after(async () => {
    await proxy.close();
    for (const s of streams) s.destroy();
    await new Promise<void>((r) => upstream.close(() => r()));
  });

  async function openWatch(query: string): Promise<{ lines: number[]; ac: AbortController; ended: Promise<void> }> {
    const ac = new AbortController();
    const res = await request(`http://${proxy.addr}/api/v1/nodes?${query}`, { signal: ac.signal, bodyTimeout: 0 });
    assert.equal(res.statusCode, 200);
    const lines: number[] = [];
    const ended = (async () => {
      let pending = '';
      for await (const chunk of res.body) {
        pending += (chunk as Buffer).toString();
        for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
          lines.push((JSON.parse(pending.slice(0, nl)) as { n: number }).n);
          pending = pending.slice(nl + 1);
        }
      }
    })().catch(() => undefined);
    return { lines, ac, ended };
  }

  test('holds watch bytes while frozen, delivers them in order after, and passes other requests', async () => {
    const w = await openWatch('watch=true&resourceVersion=0');
    const w1 = await openWatch('watch=1');
    await eventually(() => w.lines.length >= 3 && w1.lines.length >= 3, { what: 'lines flowing' });
    proxy.freezeWatches();
    await upstreamWrites(6); // lines in flight at the freeze have landed by now
    const frozenAt = w.lines.length;
    const frozenAt1 = w1.lines.length;
    await upstreamWrites(30); // about 300 ms of both streams, all held
    assert.equal(w.lines.length, frozenAt, 'no watch=true bytes while frozen');
    assert.equal(w1.lines.length, frozenAt1, 'no watch=1 bytes while frozen');

    const plain = await request(`http://${proxy.addr}/api/v1/leases/x`, { method: 'GET' });
    assert.deepEqual(await plain.body.json(), { path: '/api/v1/leases/x', method: 'GET' });
    // A watch opened while frozen gets its headers but no bytes.
    const late = await openWatch('watch=true');
    await upstreamWrites(30);
    assert.equal(late.lines.length, 0);
    assert.equal(proxy.stats().watchesOpen, 3);

    proxy.unfreezeWatches();
    await eventually(() => w.lines.length > frozenAt + 10 && late.lines.length > 3, { what: 'lines flowing again' });
    assert.deepEqual(
      w.lines,
      w.lines.map((_, i) => i),
      'every line once, in order',
    );
    for (const x of [w, w1, late]) x.ac.abort();
    await Promise.all([w.ended, w1.ended, late.ended]);
    await eventually(() => proxy.stats().watchesOpen === 0 && streams.size === 0, {
      what: 'upstream streams closed with their clients',
    });
  });
});
