import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { WRITE_SLICE } from '../../src/api/ndjson-watch.js';
import { batchedIterable } from '../../src/store/event-batches.js';
import { eventually } from '../support/eventually.js';
import { listenOnLoopback, watchStreamsApp } from './watch-app.js';

/** The payloads of a chunked HTTP/1.1 response body, one per chunk. */
function chunksOf(response: string): string[] {
  let rest = response.slice(response.indexOf('\r\n\r\n') + 4);
  const out: string[] = [];
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (size === 0) return out;
    out.push(rest.slice(eol + 2, eol + 2 + size));
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/**
 * The raw response to a GET of `path` that ends with the connection: HTTP/1.1 asking the server to close it after,
 * or HTTP/1.0, which closes by default.
 */
async function getUntilClosed(port: number, path: string, version: '1.0' | '1.1' = '1.1'): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (b) => (text += b.toString()));
  socket.write(`GET ${path} HTTP/${version}\r\nHost: x\r\n${version === '1.1' ? 'Connection: close\r\n' : ''}\r\n`);
  await new Promise((resolve) => socket.on('close', resolve));
  return text;
}

const ev = (name: string): unknown => ({ type: 'ADDED', object: { metadata: { name } } });

/** An app whose GET /watch streams `batches` (one commit's events each) on the batch path, then ends. */
function batchesApp(batches: unknown[][]): ReturnType<typeof watchStreamsApp>['app'] {
  const { app, watches } = watchStreamsApp();
  app.get('/watch', (request, reply) =>
    watches.serve(request, reply, {
      resource: 'nodes',
      timeoutSeconds: undefined,
      events: () =>
        batchedIterable(async function* () {
          yield* batches;
        }),
    }),
  );
  return app;
}

describe('watch streams written to the response directly', () => {
  it('send each batch of events in one write: one HTTP chunk per batch', async () => {
    const app = batchesApp([[ev('a'), ev('b'), ev('c')], [ev('d')]]);
    const port = await listenOnLoopback(app);
    try {
      const text = await getUntilClosed(port, '/watch');
      const line = (name: string): string => `${JSON.stringify(ev(name))}\n`;
      assert.deepEqual(chunksOf(text), [line('a') + line('b') + line('c'), line('d')]);
    } finally {
      await app.close();
    }
  });

  it('write a batch longer than a slice in slices, the event loop turning between them', async () => {
    const { app, watches } = watchStreamsApp();
    const evN = (i: number): unknown => ({ type: 'ADDED', object: { metadata: { name: `n${i}` } } });
    const n = WRITE_SLICE * 2 + 1;
    // Turns of the event loop seen while the batch is written: each write lands in the turn it was made in.
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    tick();
    const turnsAtWrite: number[] = [];
    app.get('/watch', (request, reply) => {
      const served = watches.serve(request, reply, {
        resource: 'nodes',
        timeoutSeconds: undefined,
        events: () =>
          batchedIterable(async function* () {
            yield Array.from({ length: n }, (_, i) => evN(i));
          }),
      });
      // The headers are out; the slices go straight to the socket as chunk frames (Buffers), and the response's
      // own last chunk (a string) is not one of them.
      const socket = reply.raw.socket!;
      const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
      socket.write = ((...args: unknown[]) => {
        if (typeof args[0] !== 'string') turnsAtWrite.push(turns);
        return write(...args);
      }) as typeof socket.write;
      return served;
    });
    const port = await listenOnLoopback(app);
    try {
      const text = await getUntilClosed(port, '/watch');
      const lines = chunksOf(text)
        .join('')
        .split('\n')
        .filter((l) => l !== '');
      assert.deepEqual(
        lines,
        Array.from({ length: n }, (_, i) => JSON.stringify(evN(i))),
        'every event, in order',
      );
      assert.equal(turnsAtWrite.length, 3, 'three slices');
      assert.ok(turnsAtWrite[0]! < turnsAtWrite[1]! && turnsAtWrite[1]! < turnsAtWrite[2]!, `turns ${turnsAtWrite}`);
    } finally {
      ticking = false;
      await app.close();
    }
  });

  it('send plain lines to an HTTP/1.0 client, whose response is not chunked', async () => {
    const app = batchesApp([[ev('a'), ev('b')], [ev('c')]]);
    const port = await listenOnLoopback(app);
    try {
      const text = await getUntilClosed(port, '/watch', '1.0');
      assert.doesNotMatch(text, /transfer-encoding/i);
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      assert.equal(body, ['a', 'b', 'c'].map((name) => `${JSON.stringify(ev(name))}\n`).join(''));
    } finally {
      await app.close();
    }
  });

  it('end the watch when the response reports an error, instead of throwing it at the process', async () => {
    const { app, watches } = watchStreamsApp();
    let response: ServerResponse | undefined;
    app.get('/watch', (request, reply) => {
      response = reply.raw;
      return watches.serve(request, reply, {
        resource: 'nodes',
        timeoutSeconds: undefined,
        // Like a store watch: nothing to send until the watch is stopped.
        events: (signal) => ({
          [Symbol.asyncIterator]: () => ({
            next: () =>
              new Promise<IteratorResult<unknown>>((resolve) =>
                signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true }),
              ),
          }),
        }),
      });
    });
    const port = await listenOnLoopback(app);
    const socket = connect(port, '127.0.0.1');
    try {
      socket.on('error', () => {});
      socket.write('GET /watch HTTP/1.1\r\nHost: x\r\n\r\n');
      await eventually(() => watches.size === 1, { what: 'the watch open' });
      response?.emit('error', new Error('the socket broke'));
      await eventually(() => watches.size === 0, { what: 'the watch ended' });
    } finally {
      socket.destroy();
      await app.close();
    }
  });
});
