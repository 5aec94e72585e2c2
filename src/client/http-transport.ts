import type { Clock } from '../core/clock.js';
import { ShepherdError, errorFromStatus, type StatusReason } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import { isStatus } from '../core/status.js';
import { fullJitterDelay } from './backoff.js';
import { UndiciSender, type HttpSender, type SentResponse } from './http-sender.js';
import { classifyNetworkError, describeAddress } from './network-errors.js';
import { NodeHttpSender } from './node-http-sender.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface TransportOptions {
  addresses: URL[];
  token?: string;
  ca?: string;
  requestTimeoutMs: number;
  retry: { maxAttempts: number; initialBackoffMs: number; maxBackoffMs: number };
  clock: Clock;
  random: Random;
  log: Logger;
  userAgent: string;
  /** What sends the requests: undici (default) or node:http, which costs ~20 MB less memory (the agent's). */
  sender?: 'undici' | 'node';
}

export interface HttpRequest {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  /** Sees the headers of the successful answer. */
  onResponseHeaders?: (headers: Readonly<Record<string, string | string[] | undefined>>) => void;
}

/** An open response body (a watch stream) and the address that serves it. */
export interface OpenStream {
  body: AsyncIterable<Buffer> & { destroy(): unknown };
  base: URL;
  address: string;
}

type Attempt<T> =
  | { ok: true; value: T }
  | { ok: false; error: ShepherdError; retryable: boolean; failover: boolean; retryAfterMs: number | undefined };

/**
 * Requests over one shared keep-alive pool (undici's, or node:http's: http-sender.ts) with retries and fail-over between API addresses.
 * Only idempotent failures are retried: connection errors, 429 and 503, for GET/PUT/DELETE (a PUT is safe to
 * repeat because its resourceVersion precondition turns a duplicate into a 409), and POST only when the
 * connection failed before the request could be sent.
 */
export class HttpTransport {
  readonly #options: TransportOptions;
  readonly #sender: HttpSender;
  /** The address that answered last: calls stick to it until it fails. */
  #current = 0;
  /** Open watch bodies: Agent.close() waits for every request to finish, so close() ends these first. */
  readonly #streams = new Set<SentResponse['body']>();
  #closing: Promise<void> | undefined;

  constructor(options: TransportOptions) {
    if (options.addresses.length === 0) throw new Error('HttpTransport needs at least one API address');
    this.#options = options;
    this.#sender = options.sender === 'node' ? new NodeHttpSender(options.ca) : new UndiciSender(options.ca);
  }

  async request<T>(req: HttpRequest): Promise<T> {
    const { maxAttempts, initialBackoffMs, maxBackoffMs } = this.#options.retry;
    const n = this.#options.addresses.length;
    const tried = new Set<number>();
    for (let failures = 0; ;) {
      const index = this.#current;
      const attempt = await this.#attempt<T>(index, req);
      if (attempt.ok) return attempt.value;
      if (!attempt.retryable) throw attempt.error;
      if (attempt.failover) {
        // Move to the next address at once; back off only after every address failed in this round.
        tried.add(index);
        this.#current = (index + 1) % n;
        if (!tried.has(this.#current)) continue;
      }
      failures++;
      if (failures >= maxAttempts) throw attempt.error;
      tried.clear();
      const jitter = fullJitterDelay(
        { initialMs: initialBackoffMs, maxMs: maxBackoffMs },
        failures - 1,
        this.#options.random,
      );
      const delayMs = Math.max(jitter, attempt.retryAfterMs ?? 0);
      this.#options.log.debug(
        { method: req.method, path: req.path, attempt: failures, delayMs, reason: attempt.error.reason },
        `retrying ${req.method} ${req.path} in ${delayMs}ms: ${attempt.error.message}`,
      );
      await this.#options.clock.sleep(delayMs, req.signal);
    }
  }

  /**
   * Opens a long-lived GET (a watch): no body timeout, no retries; a connection failure moves on to the next
   * address at once, so a watch that is resumed later starts on an address that answered.
   */
  async openStream(req: HttpRequest): Promise<OpenStream> {
    const n = this.#options.addresses.length;
    for (let i = 0; ; i++) {
      const index = this.#current;
      const base = this.#options.addresses[index]!;
      try {
        const res = await this.#send(base, req, 0);
        if (res.statusCode >= 400) throw errorFromResponse(res.statusCode, await res.body.text(), req, base);
        const body = res.body;
        this.#streams.add(body);
        body.once('close', () => this.#streams.delete(body));
        return { body, base, address: describeAddress(base) };
      } catch (err) {
        if (req.signal?.aborted || err instanceof ShepherdError) throw err;
        const failure = classifyNetworkError(err, base, this.#options.requestTimeoutMs);
        if (!failure.connection || i + 1 >= n) throw failure.error;
        this.#current = (index + 1) % n;
      }
    }
  }

  /** True once close() was called: a watch that ends then ends quietly. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** Idempotent: a second close() waits for the first. */
  close(): Promise<void> {
    if (!this.#closing) {
      for (const body of this.#streams) body.destroy();
      this.#closing = this.#sender.close();
    }
    return this.#closing;
  }

  async #attempt<T>(index: number, req: HttpRequest): Promise<Attempt<T>> {
    const base = this.#options.addresses[index]!;
    const idempotent = req.method !== 'POST';
    let res: SentResponse;
    try {
      res = await this.#send(base, req, this.#options.requestTimeoutMs);
    } catch (err) {
      if (req.signal?.aborted) throw err;
      const f = classifyNetworkError(err, base, this.#options.requestTimeoutMs);
      const retryable = f.connection && (idempotent || !f.maybeSent);
      return { ok: false, error: f.error, retryable, failover: f.connection, retryAfterMs: undefined };
    }
    const text = await res.body.text();
    if (res.statusCode < 400) {
      req.onResponseHeaders?.(res.headers);
      return { ok: true, value: parseBody<T>(text, req, base) };
    }
    const overloaded = res.statusCode === 429 || res.statusCode === 503;
    const parsed = errorFromResponse(res.statusCode, text, req, base);
    const retryAfterMs = retryAfter(res.headers['retry-after'], parsed, this.#options.clock.now());
    const error = overloaded ? withRetryAfter(parsed, retryAfterMs) : parsed;
    // A 503 (store not open, shutting down) is that server's trouble: another address may serve at once.
    // A 429 is the cluster's rate limit, which another server would apply too.
    return { ok: false, error, retryable: overloaded && idempotent, failover: res.statusCode === 503, retryAfterMs };
  }

  #send(base: URL, req: HttpRequest, timeoutMs: number): Promise<SentResponse> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#options.userAgent };
    if (this.#options.token !== undefined) headers.authorization = `Bearer ${this.#options.token}`;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    return this.#sender.send({
      origin: base.origin,
      path: joinPath(base, req.path, req.query),
      method: req.method,
      headers,
      body,
      signal: req.signal,
      headersTimeoutMs: this.#options.requestTimeoutMs,
      bodyTimeoutMs: timeoutMs,
    });
  }
}

function joinPath(base: URL, path: string, query: Record<string, string | undefined> | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, v);
  const qs = params.toString();
  return `${base.pathname.replace(/\/+$/, '')}${path}${qs === '' ? '' : `?${qs}`}`;
}

function parseBody<T>(text: string, req: HttpRequest, base: URL): T {
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new ShepherdError(
      'InternalError',
      `${req.method} ${req.path} at ${describeAddress(base)} answered with a body that is not JSON; is --api-addr a shepherd API server?`,
      undefined,
      { cause: err },
    );
  }
}

/** Revives a Status body as the matching error class; any other error body gets the HTTP code's reason. */
export function errorFromResponse(code: number, text: string, req: HttpRequest, base: URL): ShepherdError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isStatus(parsed)) return errorFromStatus(parsed.reason, parsed.message, parsed.details);
  const snippet = text.trim().slice(0, 200);
  return new ShepherdError(
    reasonForCode(code),
    `${req.method} ${req.path} at ${describeAddress(base)} failed with HTTP ${code}${snippet === '' ? '' : `: ${snippet}`}`,
  );
}

const REASON_BY_CODE: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function reasonForCode(code: number): StatusReason {
  return REASON_BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'BadRequest');
}

/**
 * A 429/503 carries its wait in the Retry-After header and/or the Status' details.retryAfterSeconds (absent in
 * a proxy's answer; errorFromStatus then defaults a 429 to 1 s). The error gets the longer of the two, so
 * callers that retry themselves (the agent) never come back sooner than either asked.
 */
function withRetryAfter(error: ShepherdError, retryAfterMs: number | undefined): ShepherdError {
  if (retryAfterMs === undefined) return error;
  const seconds = Math.max(error.details?.retryAfterSeconds ?? 0, Math.ceil(retryAfterMs / 1000));
  if (seconds === error.details?.retryAfterSeconds) return error;
  return errorFromStatus(error.reason, error.message, { ...error.details, retryAfterSeconds: seconds });
}

/** Retry-After in seconds or as an HTTP date (RFC 9110), else the Status details' retryAfterSeconds. */
function retryAfter(header: string | string[] | undefined, error: ShepherdError, nowMs: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && value.trim() !== '') {
    const trimmed = value.trim();
    if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
    const at = Date.parse(trimmed);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  const seconds = error.details?.retryAfterSeconds;
  return seconds === undefined ? undefined : seconds * 1000;
}
