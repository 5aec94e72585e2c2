import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of one server that can cut the link (the fault of test/e2e/witness.test.ts): while cut, every
 * open connection is destroyed and new ones are closed at once, as a failed link between one agent and the control
 * plane would look to both ends; `restore()` lets connections through again. Bytes are passed unchanged, so it works
 * for http and https alike.
 */
export class CutProxy {
  readonly #server: Server;
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<[Socket, Socket]>();
  #cut = false;

  private constructor(target: string) {
    const i = target.lastIndexOf(':');
    this.#target = { host: target.slice(0, i), port: Number(target.slice(i + 1)) };
    this.#server = createServer((down) => this.#accept(down));
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

  /** "127.0.0.1:port", for `--api-addr`. */
  get addr(): string {
    return `127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  cut(): void {
    this.#cut = true;
    for (const [a, b] of this.#pairs) {
      a.destroy();
      b.destroy();
    }
    this.#pairs.clear();
  }

  restore(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((res) => this.#server.close(() => res()));
  }

  #accept(down: Socket): void {
    if (this.#cut) {
      down.destroy();
      return;
    }
    const up = connect(this.#target.port, this.#target.host);
    const pair: [Socket, Socket] = [down, up];
    this.#pairs.add(pair);
    const end = (): void => {
      this.#pairs.delete(pair);
      down.destroy();
      up.destroy();
    };
    down.once('error', end).once('close', end);
    up.once('error', end).once('close', end);
    down.pipe(up);
    up.pipe(down);
  }
}
