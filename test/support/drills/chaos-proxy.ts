// A loopback TCP proxy that cuts its connections at random moments (drill 5): watch streams break mid-line,
// mid-chunk or between events, the way a flaky network or a load balancer's idle reaper breaks them.
// `pause()` takes the proxy down altogether (connections refused) until `resume()`, to strand a client.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { Random } from '../../../src/core/random.js';

export interface ChaosProxyOptions {
  targetPort: number;
  random: Random;
  /** Each connection lives a uniform random time in [minLifeMs, maxLifeMs], then both sides are destroyed. */
  minLifeMs: number;
  maxLifeMs: number;
}

export class ChaosProxy {
  readonly #options: ChaosProxyOptions;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;
  /** Connections the proxy cut on purpose. */
  cuts = 0;
  connections = 0;

  constructor(options: ChaosProxyOptions) {
    this.#options = options;
  }

  get port(): number {
    return this.#port;
  }

  /** Listens on 127.0.0.1 (a random port the first time, the same port after a pause). */
  async start(): Promise<number> {
    const server = createServer((client) => this.#accept(client));
    await new Promise<void>((res, rej) => {
      server.once('error', rej);
      server.listen(this.#port, '127.0.0.1', () => res());
    });
    this.#server = server;
    this.#port = (server.address() as { port: number }).port;
    return this.#port;
  }

  #accept(client: Socket): void {
    this.connections++;
    const upstream = createConnection({ host: '127.0.0.1', port: this.#options.targetPort });
    const pair = [client, upstream];
    for (const s of pair) {
      this.#sockets.add(s);
      s.on('error', () => pair.forEach((x) => x.destroy()));
      s.on('close', () => {
        this.#sockets.delete(s);
        pair.forEach((x) => x.destroy());
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    const { minLifeMs, maxLifeMs, random } = this.#options;
    const timer = setTimeout(
      () => {
        if (client.destroyed) return;
        this.cuts++;
        pair.forEach((x) => x.destroy());
      },
      minLifeMs + random.next() * (maxLifeMs - minLifeMs),
    );
    client.on('close', () => clearTimeout(timer));
  }

  /** Cuts every connection and refuses new ones. */
  async pause(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise<void>((res) => server.close(() => res()));
  }

  resume(): Promise<number> {
    return this.start();
  }

  close(): Promise<void> {
    return this.pause();
  }
}
