import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isReason } from '../../src/core/errors.js';
import { seededRandom } from '../../src/core/random.js';
import { ListWatchStore } from '../../src/ui/store/list-watch-store.js';
import { ApiTransport } from '../../src/ui/store/transport.js';
import { FakeClock, flush } from '../support/fake-clock.js';

// The dashboard's list + watch store against a scripted fetch: what it asks the server, in which order, and what
// it holds after each answer. Time is a FakeClock, so reconnect backoff is stepped, never slept.
interface Obj {
  metadata: { name: string; resourceVersion: string };
  value?: number;
}

const obj = (name: string, rv: number, value?: number): Obj => ({
  metadata: { name, resourceVersion: String(rv) },
  ...(value === undefined ? {} : { value }),
});

interface Stream {
  send(line: unknown): void;
  end(): void;
}

type Answer = (url: string) => Response | Promise<Response>;

/** A fetch that answers requests with the scripted answers in order, and hangs (until aborted) when none is left. */
class ScriptedServer {
  readonly requests: Array<{ url: string; authorization: string | undefined }> = [];
  readonly #answers: Answer[] = [];

  answer(a: Answer): void {
    this.#answers.push(a);
  }

  list(items: Obj[], rv: number, cont?: string): void {
    this.answer(() =>
      Response.json({ kind: 'List', metadata: { resourceVersion: String(rv), continue: cont }, items }),
    );
  }

  watch(): Stream {
    let ctl!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
    this.answer(() => new Response(body, { headers: { 'content-type': 'application/x-ndjson' } }));
    return {
      send: (line) => ctl.enqueue(new TextEncoder().encode(`${JSON.stringify(line)}\n`)),
      end: () => ctl.close(),
    };
  }

  status(code: number, reason: string): void {
    this.answer(() =>
      Response.json({ kind: 'Status', status: 'Failure', reason, code, message: reason }, { status: code }),
    );
  }

  readonly fetch = (url: string, init: RequestInit): Promise<Response> => {
    const headers = init.headers as Record<string, string>;
    this.requests.push({ url, authorization: headers['authorization'] });
    const next = this.#answers.shift();
    if (next !== undefined) return Promise.resolve(next(url));
    return new Promise((_resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    });
  };

  paths(): string[] {
    return this.requests.map((r) => r.url);
  }
}

function storeFor(server: ScriptedServer, clock: FakeClock, token?: string): ListWatchStore<Obj> {
  return new ListWatchStore<Obj>({
    resource: { title: 'things', path: '/api/v1/things', keyOf: (o) => o.metadata.name },
    transport: new ApiTransport({ fetch: server.fetch, token: () => token }),
    clock,
    random: seededRandom(3),
    backoff: { initialMs: 1000, maxMs: 8000 },
    pageSize: 2,
  });
}

function contents(store: ListWatchStore<Obj>): string[] {
  return [...store.values()].map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
}

describe('dashboard list + watch store', () => {
  it('lists in pages, then watches from the list revision with bookmarks, sending the token as a header', async () => {
    const server = new ScriptedServer();
    server.list([obj('a', 3), obj('b', 4)], 10, 'page-2');
    server.list([obj('c', 5)], 10);
    const stream = server.watch();
    const clock = new FakeClock();
    const store = storeFor(server, clock, 'tok-1');
    let notified = 0;
    store.subscribe(() => notified++);
    const stop = new AbortController();
    const running = store.run(stop.signal);
    await flush();
    assert.deepEqual(contents(store), ['a@3', 'b@4', 'c@5']);
    assert.equal(store.status.phase, 'live');
    assert.deepEqual(server.paths(), [
      '/api/v1/things?limit=2',
      '/api/v1/things?limit=2&continue=page-2',
      '/api/v1/things?watch=true&allowWatchBookmarks=true&resourceVersion=10',
    ]);
    assert.ok(server.requests.every((r) => r.authorization === 'Bearer tok-1' && !r.url.includes('tok-1')));

    const before = store.version;
    stream.send({ type: 'MODIFIED', object: obj('a', 11, 1) });
    stream.send({ type: 'ADDED', object: obj('d', 12) });
    stream.send({ type: 'DELETED', object: obj('b', 13) });
    stream.send({ type: 'BOOKMARK', object: { kind: 'Thing', apiVersion: 'v1', metadata: { resourceVersion: '20' } } });
    await flush();
    assert.deepEqual(contents(store), ['a@11', 'c@5', 'd@12']);
    assert.equal(store.get('a')?.value, 1);
    assert.equal(store.version, before + 3, 'a bookmark is no change of contents');
    assert.equal(store.resourceVersion, '20');
    assert.ok(notified >= 4);
    stop.abort();
    await running;
  });

  it('a stream that ends resumes at once from the last bookmark, without listing again', async () => {
    const server = new ScriptedServer();
    server.list([obj('a', 3)], 10);
    const first = server.watch();
    const second = server.watch();
    const store = storeFor(server, new FakeClock());
    const stop = new AbortController();
    const running = store.run(stop.signal);
    await flush();
    first.send({ type: 'BOOKMARK', object: { kind: 'Thing', apiVersion: 'v1', metadata: { resourceVersion: '15' } } });
    first.end();
    await flush();
    second.send({ type: 'MODIFIED', object: obj('a', 16) });
    await flush();
    assert.deepEqual(server.paths().slice(1), [
      '/api/v1/things?watch=true&allowWatchBookmarks=true&resourceVersion=10',
      '/api/v1/things?watch=true&allowWatchBookmarks=true&resourceVersion=15',
    ]);
    assert.deepEqual(contents(store), ['a@16']);
    stop.abort();
    await running;
  });

  it('410 Gone in the stream: lists again and replaces what it held', async () => {
    const server = new ScriptedServer();
    server.list([obj('a', 3), obj('b', 4)], 10);
    const stream = server.watch();
    server.list([obj('b', 40), obj('z', 41)], 50);
    server.watch();
    const store = storeFor(server, new FakeClock());
    const stop = new AbortController();
    const running = store.run(stop.signal);
    await flush();
    stream.send({ type: 'ERROR', object: { kind: 'Status', reason: 'Gone', code: 410, message: 'too old' } });
    await flush();
    assert.deepEqual(contents(store), ['b@40', 'z@41']);
    assert.deepEqual(server.paths().slice(2), [
      '/api/v1/things?limit=2',
      '/api/v1/things?watch=true&allowWatchBookmarks=true&resourceVersion=50',
    ]);
    stop.abort();
    await running;
  });

  it('a server that goes away: reconnecting, then the watch resumes from its revision after a backoff', async () => {
    const server = new ScriptedServer();
    server.list([obj('a', 3)], 10);
    const stream = server.watch();
    server.answer(() => Promise.reject(new TypeError('fetch failed')));
    server.status(503, 'ServiceUnavailable');
    const resumed = server.watch();
    const clock = new FakeClock();
    const store = storeFor(server, clock);
    const stop = new AbortController();
    const running = store.run(stop.signal);
    await flush();
    stream.send({ type: 'MODIFIED', object: obj('a', 12) });
    stream.end();
    await flush();
    assert.equal(store.status.phase, 'reconnecting');
    assert.ok(isReason(store.status.error, 'ServiceUnavailable'), String(store.status.error));
    assert.equal(server.requests.length, 3, 'waits before the next attempt');
    await clock.advance(1000);
    assert.equal(server.requests.length, 4);
    assert.equal(store.status.phase, 'reconnecting');
    await clock.advance(2000);
    resumed.send({ type: 'ADDED', object: obj('b', 13) });
    await flush();
    assert.equal(store.status.phase, 'live');
    assert.deepEqual(contents(store), ['a@12', 'b@13']);
    assert.deepEqual(
      server.paths().slice(2),
      Array(3).fill('/api/v1/things?watch=true&allowWatchBookmarks=true&resourceVersion=12'),
      'resumed from the revision it had seen, never relisted',
    );
    stop.abort();
    await running;
  });

  it('401 stops the store as unauthorized: no retry with a token the server refused', async () => {
    const server = new ScriptedServer();
    server.status(401, 'Unauthorized');
    const clock = new FakeClock();
    const store = storeFor(server, clock, 'revoked');
    await store.run(new AbortController().signal);
    assert.equal(store.status.phase, 'unauthorized');
    await clock.advance(60_000);
    assert.equal(server.requests.length, 1);
  });
});
