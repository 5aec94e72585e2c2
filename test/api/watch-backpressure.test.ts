import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import { listenOnLoopback, watchStreamsApp } from './watch-app.js';

describe('watch stream backpressure', () => {
  it('stops pulling from the event source while the client does not read', async () => {
    const { app, watches } = watchStreamsApp();
    let pulled = 0;
    const padding = 'x'.repeat(4096);
    async function* endless(signal: AbortSignal): AsyncGenerator<unknown> {
      while (!signal.aborted) {
        pulled++;
        yield { type: 'ADDED', object: { metadata: { name: `n-${pulled}` }, padding } };
        // Let the event loop breathe so socket writes and 'drain' can happen between pulls.
        if (pulled % 64 === 0) await new Promise<void>((r) => setImmediate(r));
      }
    }
    app.get('/watch', (request, reply) =>
      watches.serve(request, reply, { resource: 'nodes', timeoutSeconds: undefined, events: endless }),
    );
    const port = await listenOnLoopback(app);
    // A client that sends the request and then never reads: only kernel buffers absorb the stream.
    const socket = connect(port, '127.0.0.1');
    try {
      socket.pause();
      socket.write('GET /watch HTTP/1.1\r\nHost: x\r\n\r\n');
      // Loopback buffers autotune and fill for a while; then the count must stop moving. Without
      // backpressure it grows by thousands every 100 ms and never settles.
      let last = -1;
      let stableFor = 0;
      await eventually(
        () => {
          stableFor = pulled > 0 && pulled === last ? stableFor + 1 : 0;
          last = pulled;
          return stableFor >= 3;
        },
        {
          what: 'the server to stop pulling events for a client that does not read (no growth for 300 ms)',
          last: () => `${pulled} events pulled`,
          intervalMs: 100,
          timeoutMs: 5_000,
        },
      );
      assert.ok(pulled * padding.length < 64 * 1024 * 1024, `pulled ${pulled} events`);
    } finally {
      socket.destroy();
      await app.close();
    }
  });
});
