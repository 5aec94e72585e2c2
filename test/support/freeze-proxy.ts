import {
  type IncomingMessage,
  request as httpRequest,
  type ClientRequest,
  createServer,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One watch response flowing through the proxy. */
interface WatchPipe {
  upstream: IncomingMessage;
  downstream: ServerResponse;
  /** The upstream ended or failed while frozen: finish the downstream only after unfreezing. */
  pendingEnd: (() => void) | undefined;
}

export interface FreezeProxyStats {
  /** Watch requests seen since the proxy started. */
  watchesOpened: number;
  /** Watch responses currently streaming through the proxy. */
  watchesOpen: number;
  /** Other requests forwarded. */
  requests: number;
}

/**
 * A test HTTP proxy in front of one API server that can freeze watch streams (the fault injection of
 * test/e2e/circuit-breaker.test.ts): while
 * frozen, every response to a `watch=true|1` request keeps its connection open but stops forwarding bytes, as a
 * watch cache that silently stopped receiving would. Nothing is buffered beyond the socket buffers: the upstream
 * response is paused, so backpressure reaches the server. Every other request passes through untouched, so live
 * reads (the breaker's lease GET) and writes still work.
 */
export class FreezeProxy {
  readonly #target: URL;
  readonly #server: Server;
  readonly #watches = new Set<WatchPipe>();
  readonly #upstreams = new Set<ClientRequest>();
  readonly #sockets = new Set<Socket>();
  #frozen = false;
  #stats = { watchesOpened: 0, requests: 0 };

  private constructor(target: string) {
    this.#target = new URL(/^https?:\/\//.test(target) ? target : `http://${target}`);
    this.#server = createServer((req, res) => this.#forward(req, res));
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.once('close', () => this.#sockets.delete(s));
    });
  }

  /** Starts a proxy on 127.0.0.1, port 0, forwarding to `target` ("host:port" or an http URL). */
  static async start(target: string): Promise<FreezeProxy> {
    const proxy = new FreezeProxy(target);
    await new Promise<void>((res, rej) => {
      proxy.#server.once('error', rej);
      proxy.#server.listen(0, '127.0.0.1', () => res());
    });
    return proxy;
  }

  /** "127.0.0.1:port", for `--api-addr`. */
  get addr(): string {
    return `127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  get frozen(): boolean {
    return this.#frozen;
  }

  stats(): FreezeProxyStats {
    return { ...this.#stats, watchesOpen: this.#watches.size };
  }

  /** Stops forwarding watch bytes (open and future watches); connections stay open. */
  freezeWatches(): void {
    this.#frozen = true;
    for (const w of this.#watches) w.upstream.pause();
  }

  /** Forwards watch bytes again, including what the server queued meanwhile. */
  unfreezeWatches(): void {
    this.#frozen = false;
    for (const w of this.#watches) {
      w.upstream.resume();
      const end = w.pendingEnd;
      w.pendingEnd = undefined;
      end?.();
    }
  }

  async close(): Promise<void> {
    for (const r of this.#upstreams) r.destroy();
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((res) => this.#server.close(() => res()));
  }

  #forward(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.#target);
    const watch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
    if (watch) this.#stats.watchesOpened++;
    else this.#stats.requests++;
    const headers = { ...req.headers, host: this.#target.host };
    const up = httpRequest(url, { method: req.method, headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      if (!watch) {
        upRes.pipe(res);
        upRes.once('error', () => res.destroy());
        return;
      }
      this.#pipeWatch(upRes, res);
    });
    this.#upstreams.add(up);
    up.once('close', () => this.#upstreams.delete(up));
    up.once('error', (err) => {
      if (res.headersSent) res.destroy(err);
      else res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: upstream failed: ${err.message}`);
    });
    // The client going away ends the upstream request too, so the server sees its watcher leave.
    res.once('close', () => up.destroy());
    req.pipe(up);
  }

  #pipeWatch(upRes: IncomingMessage, res: ServerResponse): void {
    const pipe: WatchPipe = { upstream: upRes, downstream: res, pendingEnd: undefined };
    this.#watches.add(pipe);
    res.flushHeaders();
    if (this.#frozen) upRes.pause();
    upRes.on('data', (chunk: Buffer) => {
      // A chunk already read when the freeze began is the last one through; pause() stops the rest.
      if (!res.write(chunk)) {
        upRes.pause();
        res.once('drain', () => {
          if (!this.#frozen) upRes.resume();
        });
      }
    });
    const finish = (fn: () => void): void => {
      if (this.#frozen) pipe.pendingEnd = fn;
      else fn();
    };
    // While frozen the client must not learn that the stream ended: it would reconnect and catch up.
    upRes.once('end', () => finish(() => res.end()));
    upRes.once('error', () => finish(() => res.destroy()));
    res.once('close', () => {
      this.#watches.delete(pipe);
      upRes.destroy();
    });
  }
}
