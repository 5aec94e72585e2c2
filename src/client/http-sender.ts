import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';

/** One request as the transport sends it: the path already joined with the base URL's path and the query. */
export interface SendRequest {
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal | undefined;
  /** Longest wait for the response head. */
  headersTimeoutMs: number;
  /** Longest gap between body chunks; 0: none (watches idle between bookmarks). */
  bodyTimeoutMs: number;
}

/** A response whose body is still to be read (a watch: chunk by chunk). */
export interface SentResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Buffer> & {
    text(): Promise<string>;
    destroy(): unknown;
    once(event: 'close', listener: () => void): unknown;
  };
}

/** How the transport puts requests on the wire: undici (default) or node:http (node-http-sender.ts). */
export interface HttpSender {
  send(req: SendRequest): Promise<SentResponse>;
  /** Ends idle connections; requests still running end on their own. */
  close(): Promise<void>;
}

/**
 * undici's keep-alive Agent. Loaded on first use (createRequire), so a process that sends with node:http (the
 * agent: docs/architecture.md#memory) never pays undici's ~20 MB of memory.
 */
export class UndiciSender implements HttpSender {
  readonly #agent: Dispatcher & { close(): Promise<void> };

  constructor(ca: string | undefined) {
    const { Agent } = createRequire(import.meta.url)('undici') as typeof Undici;
    this.#agent = new Agent({ keepAliveTimeout: 10_000, ...(ca === undefined ? {} : { connect: { ca } }) });
  }

  async send(req: SendRequest): Promise<SentResponse> {
    // undici's own timers bound the wait for headers and the gaps between body chunks; 0 disables the body
    // timeout for watches, whose streams may idle between bookmarks (undici's default 300 s would cut them).
    const res = await this.#agent.request({
      origin: req.origin,
      path: req.path,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body ?? null,
      signal: req.signal ?? null,
      headersTimeout: req.headersTimeoutMs,
      bodyTimeout: req.bodyTimeoutMs,
    });
    return { statusCode: res.statusCode, headers: res.headers, body: res.body };
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
