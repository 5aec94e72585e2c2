import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import { nodeBody, startTestServer, type TestServer } from './harness.js';

const BUDGET = 256 * 1024;

/** A client that sends a watch request and then reads nothing until told to. */
function silentWatcher(port: number, path: string): { socket: Socket; text(): string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.pause();
  socket.on('data', (b) => (received += b.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  return { socket, text: () => received, closed };
}

describe('a watcher that stops reading is ended once its unsent changes pass the byte budget', () => {
  let t: TestServer;
  let port = 0;
  before(async () => {
    t = await startTestServer({ store: { maxWatchUnsentBytes: BUDGET } });
    await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.server.app.server.address();
    port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  });
  after(async () => {
    await t.close();
  });

  const tooSlow = async (): Promise<number> => {
    const text = (await t.server.app.inject({ url: '/metrics' })).body;
    return Number(/^shepherd_watches_too_slow_total (\d+)$/m.exec(text)?.[1] ?? 0);
  };

  it('ends it with a 429 ERROR line after what was buffered and frees its slot', async () => {
    const from = await t.store.currentRevision();
    const path = `/api/v1/nodes?watch=true&resourceVersion=${from}`;
    const reader = silentWatcher(port, path);
    const deaf = silentWatcher(port, path);
    await eventually(() => t.server.watches.size === 2, { what: 'two open watches' });
    // Write until both are cut: kernel socket buffers absorb a few MB first, then the store queue fills.
    const pad = { 'a.io/pad': 'x'.repeat(32 * 1024) };
    let written = 0;
    for (let round = 0; (await tooSlow()) < 2; round++) {
      assert.ok(written < 256 * 1024 * 1024, `still not cut after ${written} bytes`);
      await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          t.server.registry.nodes.create(
            nodeBody(`n-${round}-${i}`, { metadata: { name: `n-${round}-${i}`, annotations: pad } }),
          ),
        ),
      );
      written += 16 * 33 * 1024;
    }
    await eventually(() => t.server.watches.size === 0, { what: 'both watch slots freed' });

    // The reader catches up: everything buffered, then the ERROR line, then the end of the response.
    reader.socket.resume();
    await eventually(() => reader.text().includes('\r\n0\r\n\r\n'), {
      what: 'the end of the chunked response',
      timeoutMs: 30_000,
    });
    const lines = reader
      .text()
      .split(/\r?\n/)
      .filter((l) => l.startsWith('{"type"'));
    const last = JSON.parse(lines[lines.length - 1] as string) as { type: string; object: Record<string, unknown> };
    assert.equal(last.type, 'ERROR');
    assert.equal(last.object['kind'], 'Status');
    assert.equal(last.object['code'], 429);
    assert.equal(last.object['reason'], 'TooManyRequests');
    assert.match(
      String(last.object['message']),
      /fell more than 256 KiB .* behind.*resume from the last resourceVersion/,
    );
    assert.ok(
      lines.length > 2,
      `the buffered events came first: ${lines.length} lines in ${reader.text().length} bytes: ${reader.text().slice(0, 300)}`,
    );

    // The other one reads only now: it too finds the ERROR line at the end (kept in kernel buffers, not the heap).
    deaf.socket.resume();
    await eventually(() => deaf.text().includes('"code":429'), {
      what: "the deaf client's ERROR line",
      timeoutMs: 30_000,
    });
    deaf.socket.destroy();
    reader.socket.destroy();
  });
});
