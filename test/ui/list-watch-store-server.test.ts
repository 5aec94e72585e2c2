import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Node } from '../../src/core/node.js';
import { seededRandom } from '../../src/core/random.js';
import { ListWatchStore } from '../../src/ui/store/list-watch-store.js';
import { ApiTransport } from '../../src/ui/store/transport.js';
import { nodeBody, startTestServer, type TestServer } from '../api/harness.js';
import { eventually } from '../support/eventually.js';
import { FakeClock } from '../support/fake-clock.js';

// The dashboard's store against the real API server on a socket: its paging requests are the server's.
describe('dashboard list + watch store against the API server', () => {
  let t: TestServer;
  let base: string;
  const paths: string[] = [];

  before(async () => {
    t = await startTestServer();
    await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.server.app.server.address();
    assert.ok(addr !== null && typeof addr === 'object');
    base = `http://127.0.0.1:${addr.port}`;
  });
  after(async () => {
    await t.close();
  });

  it('lists every page at one resourceVersion, then watches from it', async () => {
    const name = (i: number): string => `ui-${String(i).padStart(4, '0')}`;
    await Promise.all(Array.from({ length: 1100 }, (_, i) => t.server.registry.nodes.create(nodeBody(name(i)))));
    const store = new ListWatchStore<Node>({
      resource: { title: 'nodes', path: '/api/v1/nodes', keyOf: (n) => n.metadata.name },
      transport: new ApiTransport({
        fetch: (url, init) => {
          paths.push(url);
          return fetch(`${base}${url}`, init);
        },
        token: () => undefined,
      }),
      clock: new FakeClock(),
      random: seededRandom(1),
    });
    const stop = new AbortController();
    const running = store.run(stop.signal);
    try {
      await eventually(() => store.status.phase === 'live', { what: 'the store live' });
      assert.equal(store.size, 1100);
      assert.deepEqual(
        paths.map((p) => p.replace(/continue=[^&]+/, 'continue=T')),
        [
          '/api/v1/nodes?limit=500',
          '/api/v1/nodes?limit=500&continue=T',
          '/api/v1/nodes?limit=500&continue=T',
          `/api/v1/nodes?watch=true&allowWatchBookmarks=true&resourceVersion=${await t.store.currentRevision()}`,
        ],
      );
      await t.server.registry.nodes.create(nodeBody('ui-late'));
      await eventually(() => store.get('ui-late'), { what: 'the watch delivering ui-late' });
    } finally {
      stop.abort();
      await running;
    }
  });
});
