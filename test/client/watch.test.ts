import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import fc from 'fast-check';
import type { WatchEvent } from '../../src/client/api-client.js';
import { HttpApiClient } from '../../src/client/http-client.js';
import { ndjsonLines } from '../../src/client/ndjson.js';
import { watchWithResume } from '../../src/client/watch-resume.js';
import { ForbiddenError, GoneError, ServiceUnavailableError, UnauthorizedError } from '../../src/core/errors.js';
import type { Node } from '../../src/core/node.js';
import { seededRandom } from '../../src/core/random.js';
import { eventually } from '../support/eventually.js';
import { FakeHttpServer } from '../support/fake-http-server.js';
import { StepClock } from './step-clock.js';
import { testSender } from './test-sender.js';

const node = (name: string, rv: string, extra: Record<string, string> = {}): Node =>
  ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: rv,
      creationTimestamp: '2026-11-29T12:00:00.000Z',
      labels: extra,
    },
    spec: {},
    status: { conditions: [] },
  }) as Node;
const bookmark = (rv: string) => ({
  type: 'BOOKMARK',
  object: { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: rv } },
});
const gone = {
  type: 'ERROR',
  object: {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    reason: 'Gone',
    code: 410,
    message: 'too old resource version: 3 (40)',
  },
};
const nodeList = (rv: string, items: Node[]) => ({
  apiVersion: 'v1',
  kind: 'NodeList',
  metadata: { resourceVersion: rv },
  items,
});
type Named = { metadata: { name: string; resourceVersion: string } };
const summary = (ev: WatchEvent<Named>) =>
  `${ev.type} ${ev.type === 'BOOKMARK' ? '' : `${ev.object.metadata.name}@`}${ev.object.metadata.resourceVersion}`;

async function* chunked(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

describe('ndjsonLines', () => {
  it('yields the same lines however the bytes are chunked (multi-byte characters included)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc
            .string({ unit: 'grapheme', minLength: 1 })
            .filter((s) => !s.includes('\n') && s.trim() !== '' && !s.endsWith('\r')),
          { maxLength: 8 },
        ),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        async (lines, cuts, trailingNewline) => {
          const text = lines.join('\n') + (trailingNewline && lines.length > 0 ? '\n' : '');
          const bytes = new TextEncoder().encode(text);
          const chunks: Uint8Array[] = [];
          for (let at = 0, i = 0; at < bytes.length; i++) {
            const size = cuts[i % cuts.length]!;
            chunks.push(bytes.slice(at, at + size));
            at += size;
          }
          const got: string[] = [];
          for await (const l of ndjsonLines(chunked(chunks))) got.push(l);
          assert.deepEqual(got, lines);
        },
      ),
      { seed: 4242, numRuns: 200 },
    );
  });

  it('drops blank lines and CRLF endings', async () => {
    const got: string[] = [];
    for await (const l of ndjsonLines(chunked([new TextEncoder().encode('{"a":1}\r\n\n  \n{"b":2}')]))) got.push(l);
    assert.deepEqual(got, ['{"a":1}', '{"b":2}']);
  });
});

describe('watch over HTTP', () => {
  let server: FakeHttpServer;
  let client: HttpApiClient;
  let clock: StepClock;
  /** Every watch a test opens uses it, so a failing test cannot leave a reconnect loop running. */
  let ac: AbortController;
  beforeEach(async () => {
    ac = new AbortController();
    server = await FakeHttpServer.start();
    clock = new StepClock();
    client = new HttpApiClient({
      ...testSender(),
      addresses: [server.address],
      clock,
      random: seededRandom(1),
      retry: { maxAttempts: 1 },
    });
  });
  afterEach(async () => {
    ac.abort();
    await client.close();
    await server.close();
  });

  it('sends the watch query and yields events split at any byte, ending with the stream', async () => {
    server.acceptWatches('/api/v1/nodes');
    const seen: string[] = [];
    const done = (async () => {
      for await (const ev of client.nodes.watch({
        resourceVersion: '7',
        allowWatchBookmarks: true,
        labelSelector: 'a=b',
        signal: ac.signal,
      }))
        seen.push(summary(ev));
    })();
    const w = await server.nextWatch();
    assert.equal(w.request.query.get('watch'), 'true');
    assert.equal(w.request.query.get('resourceVersion'), '7');
    assert.equal(w.request.query.get('allowWatchBookmarks'), 'true');
    assert.equal(w.request.query.get('labelSelector'), 'a=b');
    const events = [
      { type: 'ADDED', object: node('a', '7') },
      { type: 'ADDED', object: node('zürich-1', '8') },
      bookmark('9'),
      { type: 'DELETED', object: node('b', '10') },
    ];
    const text = events.map((e) => `${JSON.stringify(e)}\n`).join('');
    const bytes = Buffer.from(text);
    const byteAt = (s: string): number => Buffer.byteLength(text.slice(0, text.indexOf(s)));
    // Cut inside the "ü" (two bytes in UTF-8), then inside the BOOKMARK line. Each chunk completes one line
    // more, and the next is written only once that line's event arrived: the client must read them apart.
    const chunks = [
      { to: byteAt('ü') + 1, seen: 1 },
      { to: byteAt('BOOKMARK'), seen: 2 },
      { to: bytes.length, seen: 4 },
    ];
    let from = 0;
    for (const { to, seen: count } of chunks) {
      w.write(bytes.subarray(from, to));
      from = to;
      await eventually(() => seen.length === count, { what: `${count} events`, last: () => seen });
    }
    w.end();
    await done;
    assert.deepEqual(seen, ['ADDED a@7', 'ADDED zürich-1@8', 'BOOKMARK 9', 'DELETED b@10']);
  });

  it('throws an ERROR line as its error class: Gone for 410', async () => {
    server.acceptWatches('/api/v1/nodes');
    const iter = client.nodes.watch({ resourceVersion: '3', signal: ac.signal })[Symbol.asyncIterator]();
    const w = await Promise.all([
      iter.next(),
      server.nextWatch().then((c) => (c.send({ type: 'ADDED', object: node('a', '4') }), c)),
    ]);
    assert.equal(w[0].done, false);
    w[1].send(gone);
    await assert.rejects(iter.next(), (e) => e instanceof GoneError && e.code === 410);
  });

  it('throws a refused watch as the Status error, and a dropped stream as ServiceUnavailableError', async () => {
    server.replyStatus('GET', '/api/v1/zones', 401, 'Unauthorized', 'no token');
    await assert.rejects(drain(client.zones.watch({})), UnauthorizedError);
    server.acceptWatches('/api/v1/nodes');
    const c = collect(client.nodes.watch({ signal: ac.signal }));
    const w = await server.nextWatch();
    w.send({ type: 'ADDED', object: node('a', '4') });
    await c.received(1);
    w.drop();
    await assert.rejects(c.done, ServiceUnavailableError);
  });

  it('ends quietly when the signal aborts', async () => {
    server.acceptWatches('/api/v1/nodes');
    const c = collect(client.nodes.watch({ signal: ac.signal }));
    const w = await server.nextWatch();
    w.send({ type: 'ADDED', object: node('a', '4') });
    await c.received(1);
    ac.abort();
    assert.deepEqual(await c.done, ['ADDED a@4']);
  });

  it('ends open watches quietly when the client closes, instead of hanging close()', async () => {
    server.acceptWatches('/api/v1/nodes');
    const c = collect(client.nodes.watch({}));
    (await server.nextWatch()).send({ type: 'ADDED', object: node('a', '4') });
    await c.received(1);
    await client.close();
    assert.deepEqual(await c.done, ['ADDED a@4']);
  });

  describe('watchWithResume', () => {
    it('resumes from the last resourceVersion (a bookmark counts) when the stream ends or drops', async () => {
      server.acceptWatches('/api/v1/nodes');
      const seen: string[] = [];
      const done = (async () => {
        for await (const ev of watchWithResume(client.nodes, {
          resourceVersion: '5',
          signal: ac.signal,
          clock,
          backoff: { initialMs: 1, maxMs: 2 },
        }))
          seen.push(summary(ev));
      })();
      const w1 = await server.nextWatch();
      assert.equal(w1.request.query.get('resourceVersion'), '5');
      w1.send({ type: 'MODIFIED', object: node('a', '6') });
      w1.send(bookmark('9'));
      w1.end();
      const w2 = await server.nextWatch();
      assert.equal(w2.request.query.get('resourceVersion'), '9');
      w2.send({ type: 'ADDED', object: node('b', '10') });
      await eventually(() => seen.length === 3, { what: 'three events', last: () => seen });
      w2.drop();
      const w3 = await server.nextWatch();
      assert.equal(w3.request.query.get('resourceVersion'), '10');
      assert.ok(clock.sleeps.length >= 1, 'a dropped connection is retried after a backoff');
      ac.abort();
      await done;
      assert.deepEqual(seen, ['MODIFIED a@6', 'BOOKMARK 9', 'ADDED b@10']);
    });

    it('resumes from the last resourceVersion, without relisting, when the server ends a watch as too slow (429)', async () => {
      server.acceptWatches('/api/v1/nodes');
      const seen: string[] = [];
      const done = (async () => {
        for await (const ev of watchWithResume(client.nodes, {
          resourceVersion: '5',
          known: [],
          signal: ac.signal,
          clock,
          backoff: { initialMs: 1, maxMs: 2 },
        }))
          seen.push(summary(ev));
      })();
      const w1 = await server.nextWatch();
      w1.send({ type: 'ADDED', object: node('a', '6') });
      w1.send({
        type: 'ERROR',
        object: {
          apiVersion: 'v1',
          kind: 'Status',
          metadata: {},
          status: 'Failure',
          reason: 'TooManyRequests',
          code: 429,
          message: 'the watch of nodes fell more than 16 MiB behind: resume from the last resourceVersion you received',
          details: { retryAfterSeconds: 1 },
        },
      });
      const w2 = await server.nextWatch();
      assert.equal(w2.request.query.get('resourceVersion'), '6');
      assert.ok(clock.sleeps.includes(1000), `waited its Retry-After: ${JSON.stringify(clock.sleeps)}`);
      ac.abort();
      await done;
      assert.deepEqual(seen, ['ADDED a@6']);
      assert.ok(!server.requests.some((r) => r.query.get('watch') === null), 'no list request');
    });

    it('relists on Gone and yields the difference from what it knew', async () => {
      server
        .acceptWatches('/api/v1/nodes')
        .replyList('/api/v1/nodes', nodeList('40', [node('a', '31'), node('c', '35')]));
      const seen: string[] = [];
      const known = [node('a', '2'), node('b', '3')];
      const done = (async () => {
        for await (const ev of watchWithResume(client.nodes, { resourceVersion: '3', known, signal: ac.signal, clock }))
          seen.push(summary(ev));
      })();
      (await server.nextWatch()).send(gone);
      const w2 = await server.nextWatch();
      assert.equal(w2.request.query.get('resourceVersion'), '40');
      ac.abort();
      await done;
      assert.deepEqual(seen, ['MODIFIED a@31', 'DELETED b@3', 'ADDED c@35']);
    });

    it('hands the list to onRelist instead, and throws errors that waiting cannot fix', async () => {
      server.acceptWatches('/api/v1/nodes', 1).replyList('/api/v1/nodes', nodeList('40', [node('a', '31')]));
      server.replyStatus('GET', '/api/v1/nodes', 403, 'Forbidden', 'nodes may not watch');
      const relists: string[] = [];
      const seen: string[] = [];
      const p = (async () => {
        const onRelist = (l: { metadata: { resourceVersion: string } }) =>
          void relists.push(l.metadata.resourceVersion);
        for await (const ev of watchWithResume(client.nodes, {
          resourceVersion: '3',
          onRelist,
          clock,
          signal: ac.signal,
        }))
          seen.push(summary(ev));
      })();
      (await server.nextWatch()).send(gone);
      await assert.rejects(p, ForbiddenError);
      assert.deepEqual(relists, ['40']);
      assert.deepEqual(seen, []);
      assert.equal(server.requests.at(-1)!.query.get('resourceVersion'), '40');
    });
  });
});

async function drain<T extends Named>(events: AsyncIterable<WatchEvent<T>>): Promise<string[]> {
  return collect(events).done;
}

/** Reads a stream in the background: what arrived so far, a wait for the nth event, and the end. */
function collect<T extends Named>(
  events: AsyncIterable<WatchEvent<T>>,
): { seen: string[]; received(n: number): Promise<unknown>; done: Promise<string[]> } {
  const seen: string[] = [];
  const done = (async () => {
    for await (const ev of events) seen.push(summary(ev as WatchEvent<Named>));
    return seen;
  })();
  done.catch(() => undefined); // a test awaits it; keep an early failure from being unhandled meanwhile
  const received = (n: number): Promise<unknown> =>
    eventually(() => seen.length >= n, { what: `${n} watch events`, last: () => seen, timeoutMs: 5_000 });
  return { seen, received, done };
}
