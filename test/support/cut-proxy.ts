import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of one API server whose link can be cut, as a dead switch would: `cut()` drops every open
 * connection and swallows new ones (accepted, never answered, so requests time out as they would across a
 * partition); `heal()` lets connections through again. Unlike a SIGSTOPped process, the program behind it stays
 * alive and sees its requests fail, which is what a network cut looks like to it.
 */
export class CutProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #target: { host: string; port: number };
  #cut = false;

  private constructor(target: string) {
    const [host, port] = target.split(':') as [string, string];
    this.#target = { host, port: Number(port) };
    this.#server = createServer((client) => this.#accept(client));
  }

  /** Starts a proxy on 127.0.0.1, port 0, forwarding to `target` ("host:port"). */
  static async start(target: string): Promise<CutProxy> {
    const proxy = new CutProxy(target);
    await new Promise<void>((res, rej) => {
      proxy.#server.once('error', rej);
      proxy.#server.listen(0, '127.0.0.1', () => res());
    });
    return proxy;
  }

  /** host:port to give the client instead of the server's. */
  get addr(): string {
    const a = this.#server.address();
    if (a === null || typeof a === 'string') throw new Error('proxy not listening');
    return `127.0.0.1:${a.port}`;
  }

  cut(): void {
    this.#cut = true;
    this.#dropAll();
  }

  heal(): void {
    this.#cut = false;
    // Connections swallowed during the cut never reached the server: end them so the client opens fresh ones.
    this.#dropAll();
  }

  async close(): Promise<void> {
    this.#dropAll();
    await new Promise<void>((res) => this.#server.close(() => res()));
  }

  #accept(client: Socket): void {
    this.#track(client);
    if (this.#cut) return;
    const upstream = createConnection(this.#target);
    this.#track(upstream);
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.once('close', end);
    upstream.once('close', end);
  }

  #track(s: Socket): void {
    this.#sockets.add(s);
    s.on('error', () => undefined);
    s.once('close', () => this.#sockets.delete(s));
  }

  #dropAll(): void {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }
}
