import type { WatchEvent, WatchRequest } from '../../src/client/api-client.js';

/**
 * One watch stream a test controls: `push` events, `end` it (a server restart), or `fail` it with an error
 * (a GoneError for 410, a ServiceUnavailableError for a dropped connection). Once ended or failed, or once the
 * request's signal aborts, the stream is over: later pushes are dropped, as a closed connection delivers nothing.
 */
export class WatchFeed<T> implements AsyncIterable<WatchEvent<T>> {
  readonly request: WatchRequest;
  /** Every event pushed while the stream was open, in order. */
  readonly pushed: WatchEvent<T>[] = [];
  #queue: Array<{ ev?: WatchEvent<T>; err?: unknown; end?: boolean }> = [];
  #wake: (() => void) | undefined;
  #over = false;

  constructor(request: WatchRequest) {
    this.request = request;
    request.signal?.addEventListener('abort', () => this.end(), { once: true });
  }

  /** False once the stream was ended, failed or aborted. */
  get open(): boolean {
    return !this.#over;
  }

  push(ev: WatchEvent<T>): void {
    if (this.#over) return;
    this.pushed.push(ev);
    this.#enqueue({ ev });
  }

  fail(err: unknown): void {
    if (this.#over) return;
    this.#over = true;
    this.#enqueue({ err });
  }

  end(): void {
    if (this.#over) return;
    this.#over = true;
    this.#enqueue({ end: true });
  }

  #enqueue(item: { ev?: WatchEvent<T>; err?: unknown; end?: boolean }): void {
    this.#queue.push(item);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    for (;;) {
      const next = this.#queue.shift();
      if (next === undefined) {
        await new Promise<void>((r) => (this.#wake = r));
        continue;
      }
      if (next.end) return;
      if (next.err !== undefined) throw next.err;
      yield next.ev as WatchEvent<T>;
    }
  }
}
