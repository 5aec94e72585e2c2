import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

interface Route {
  method: string;
  path: string;
  /** true: only watch requests; false: only non-watch requests; undefined: both. */
  watch: boolean | undefined;
  handler: Handler;
  remaining: number;
}

/** The test's end of one open watch stream. */
export interface WatchConn {
  request: RecordedRequest;
  send(event: unknown): void;
  /** Raw bytes, to test line splitting across chunks. */
  write(text: string | Buffer): void;
  end(): void;
  /** Drops the connection mid-stream, as a crashed server or a broken network would. */
  drop(): void;
  readonly closed: boolean;
}

/**
 * A node:http server on 127.0.0.1, port 0, scripted per test: routes answer in the order they were added
 * (a route with `times` is used up after that many requests), unmatched requests get a 404 Status, and watch
 * requests (`?watch=true`) hand the test a WatchConn to drive.
 */
export class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #routes: Route[] = [];
  #watchQueue: WatchConn[] = [];
  #watchWaiters: Array<(w: WatchConn) => void> = [];

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<FakeHttpServer> {
    const server = createServer();
    const fake = new FakeHttpServer(server);
    server.on('request', (req, res) => void fake.#dispatch(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** "127.0.0.1:PORT" */
  get address(): string {
    const a = this.#server.address() as AddressInfo;
    return `${a.address}:${a.port}`;
  }

  get url(): string {
    return `http://${this.address}`;
  }

  /** Answers method+path (watch requests included) with handler, `times` times. */
  on(method: string, path: string, handler: Handler, times = Number.POSITIVE_INFINITY, watch?: boolean): this {
    this.#routes.push({ method, path, watch, handler, remaining: times });
    return this;
  }

  /** Answers the list GET (not watches) of path with body. */
  replyList(path: string, body: unknown, times?: number): this {
    return this.on('GET', path, (_req, res) => sendJson(res, 200, body), times, false);
  }

  reply(
    method: string,
    path: string,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    times?: number,
  ): this {
    return this.on(method, path, (_req, res) => sendJson(res, status, body, headers), times);
  }

  /** Answers with a Status body, as the real server does for every error. */
  replyStatus(
    method: string,
    path: string,
    code: number,
    reason: string,
    message: string,
    extra: Record<string, unknown> = {},
    times?: number,
  ): this {
    const { headers, ...details } = extra as { headers?: Record<string, string> } & Record<string, unknown>;
    const body = {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      reason,
      code,
      message,
      ...details,
    };
    return this.reply(method, path, code, body, headers ?? {}, times);
  }

  /** Destroys the socket without answering (the client sees a reset / "other side closed"). */
  drop(method: string, path: string, times = 1): this {
    return this.on(method, path, (_req, res) => void res.socket?.destroy(), times);
  }

  /** Accepts watch streams on path; take them with nextWatch(). */
  acceptWatches(path: string, times = Number.POSITIVE_INFINITY): this {
    this.#routes.push({
      method: 'GET',
      path,
      watch: true,
      handler: (req, res) => this.#openWatch(req, res),
      remaining: times,
    });
    return this;
  }

  /** The next watch stream a client opens (already open ones first). */
  nextWatch(timeoutMs = 5_000): Promise<WatchConn> {
    const queued = this.#watchQueue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise<WatchConn>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no watch request arrived within ${timeoutMs}ms`)), timeoutMs);
      this.#watchWaiters.push((w) => {
        clearTimeout(timer);
        resolve(w);
      });
    });
  }

  requestsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(rec);
    const isWatch = url.searchParams.get('watch') === 'true';
    const route = this.#routes.find(
      (r) =>
        r.remaining > 0 &&
        r.method === rec.method &&
        r.path === rec.path &&
        (r.watch === undefined || r.watch === isWatch),
    );
    if (!route) {
      sendJson(res, 404, {
        apiVersion: 'v1',
        kind: 'Status',
        metadata: {},
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
        message: `no route for ${rec.method} ${rec.path}`,
      });
      return;
    }
    route.remaining--;
    await route.handler(rec, res);
  }

  #openWatch(request: RecordedRequest, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.flushHeaders();
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const conn: WatchConn = {
      request,
      send: (event) => void (closed || res.write(`${JSON.stringify(event)}\n`)),
      write: (text) => void (closed || res.write(text)),
      end: () => void (closed || res.end()),
      drop: () => void res.socket?.destroy(),
      get closed() {
        return closed;
      },
    };
    const waiter = this.#watchWaiters.shift();
    if (waiter) waiter(conn);
    else this.#watchQueue.push(conn);
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
