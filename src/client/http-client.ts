import { readFileSync } from 'node:fs';
import { systemClock, type Clock } from '../core/clock.js';
import { ShepherdError } from '../core/errors.js';
import type { Event } from '../core/event.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../core/lease.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { Node } from '../core/node.js';
import { systemRandom, type Random } from '../core/random.js';
import type { Zone } from '../core/zone.js';
import type {
  ApiClient,
  ListOptions,
  NodeClient,
  ObjectList,
  RequestOptions,
  ResourceClient,
  VersionInfo,
  WatchEvent,
  WatchRequest,
  Writable,
} from './api-client.js';
import { HttpTransport } from './http-transport.js';
import { LeaseClients } from './lease-clients.js';
import { listAll, listPages } from './list-pages.js';
import { ndjsonLines, parseWatchLine } from './ndjson.js';
import { classifyNetworkError } from './network-errors.js';

export interface HttpClientOptions {
  /** Each "host:port" or an http(s) URL; with several, a connection failure fails over to the next. */
  addresses: string[];
  /** Bearer token; never logged. */
  token?: string;
  /** CA bundle for TLS (--certificate-authority), as a path or as PEM text. */
  caFile?: string;
  ca?: string;
  /** Per request (not for watches); default 30 s. */
  requestTimeoutMs?: number;
  /** Retries of idempotent failures; defaults 5 attempts, 200 ms → 7 s. */
  retry?: { maxAttempts?: number; initialBackoffMs?: number; maxBackoffMs?: number };
  clock?: Clock;
  random?: Random;
  log?: Logger;
  userAgent?: string;
}

const DEFAULT_USER_AGENT = 'shepherd-client/0.1.0';

/** The ApiClient over HTTP (docs/api.md), for the agent, sheepctl and a remote controller. */
export class HttpApiClient implements ApiClient {
  readonly nodes: NodeClient;
  readonly events: ResourceClient<Event>;
  readonly zones: ResourceClient<Zone>;
  readonly #transport: HttpTransport;
  // Node leases use the short path every server serves; other namespaces the namespaced one.
  readonly #leases = new LeaseClients((namespace) => {
    const base =
      namespace === NODE_LEASE_NAMESPACE
        ? '/api/v1/leases'
        : `/api/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
    return new HttpResourceClient<Lease>(this.#transport, base);
  });

  constructor(options: HttpClientOptions) {
    if (options.addresses.length === 0) throw new Error('HttpApiClient needs at least one API address (--api-addr)');
    const ca = options.ca ?? (options.caFile === undefined ? undefined : readCaFile(options.caFile));
    this.#transport = new HttpTransport({
      addresses: options.addresses.map(parseAddress),
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(ca === undefined ? {} : { ca }),
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      retry: {
        maxAttempts: Math.max(1, options.retry?.maxAttempts ?? 5),
        initialBackoffMs: options.retry?.initialBackoffMs ?? 200,
        maxBackoffMs: options.retry?.maxBackoffMs ?? 7_000,
      },
      clock: options.clock ?? systemClock,
      random: options.random ?? systemRandom,
      log: options.log ?? silentLogger,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    });
    this.nodes = new HttpNodeClient(this.#transport, '/api/v1/nodes');
    this.events = new HttpResourceClient<Event>(this.#transport, '/api/v1/events');
    this.zones = new HttpResourceClient<Zone>(this.#transport, '/api/v1/zones');
  }

  leases(namespace?: string): ResourceClient<Lease> {
    return this.#leases.get(namespace);
  }

  version(options?: RequestOptions): Promise<VersionInfo> {
    return this.#transport.request<VersionInfo>({ method: 'GET', path: '/version', ...signalOf(options) });
  }

  close(): Promise<void> {
    return this.#transport.close();
  }
}

export class HttpResourceClient<T> implements ResourceClient<T> {
  protected readonly transport: HttpTransport;
  protected readonly base: string;

  constructor(transport: HttpTransport, base: string) {
    this.transport = transport;
    this.base = base;
  }

  get(name: string, options?: RequestOptions): Promise<T> {
    return this.transport.request<T>({ method: 'GET', path: this.itemPath(name), ...signalOf(options) });
  }

  list(options?: ListOptions): Promise<ObjectList<T>> {
    return listAll((o) => this.#page(o), options);
  }

  listPages(options?: ListOptions): AsyncIterable<ObjectList<T>> {
    return listPages((o) => this.#page(o), options);
  }

  #page(options: ListOptions): Promise<ObjectList<T>> {
    const query = {
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.limit === undefined ? undefined : String(options.limit),
      continue: options.continue,
    };
    return this.transport.request<ObjectList<T>>({ method: 'GET', path: this.base, query, ...signalOf(options) });
  }

  create(obj: Writable<T>, options?: RequestOptions): Promise<T> {
    return this.transport.request<T>({ method: 'POST', path: this.base, body: obj, ...signalOf(options) });
  }

  update(obj: Writable<T>, options?: RequestOptions): Promise<T> {
    return this.transport.request<T>({
      method: 'PUT',
      path: this.itemPath(nameOf(obj)),
      body: obj,
      ...signalOf(options),
    });
  }

  delete(name: string, options?: RequestOptions): Promise<T> {
    return this.transport.request<T>({ method: 'DELETE', path: this.itemPath(name), ...signalOf(options) });
  }

  /**
   * One watch stream over NDJSON. Ends when the server ends the stream; an abort ends it quietly; an ERROR
   * line is thrown as its error class (GoneError for 410); a dropped connection as ServiceUnavailableError.
   */
  async *watch(request: WatchRequest): AsyncGenerator<WatchEvent<T>> {
    const { signal } = request;
    const query = {
      watch: 'true',
      resourceVersion: request.resourceVersion,
      allowWatchBookmarks: request.allowWatchBookmarks === true ? 'true' : undefined,
      labelSelector: request.labelSelector,
      fieldSelector: request.fieldSelector,
    };
    let stream;
    try {
      stream = await this.transport.openStream({ method: 'GET', path: this.base, query, ...signalOf(request) });
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    try {
      for await (const line of ndjsonLines(stream.body)) yield parseWatchLine<T>(line, stream.address);
    } catch (err) {
      if (signal?.aborted || this.transport.closed) return;
      if (err instanceof ShepherdError) throw err;
      throw classifyNetworkError(err, stream.base, 0).error;
    } finally {
      stream.body.destroy();
    }
  }

  protected itemPath(name: string): string {
    return `${this.base}/${encodeURIComponent(name)}`;
  }
}

class HttpNodeClient extends HttpResourceClient<Node> implements NodeClient {
  updateStatus(obj: Writable<Node>, options?: RequestOptions): Promise<Node> {
    return this.transport.request<Node>({
      method: 'PUT',
      path: `${this.itemPath(nameOf(obj))}/status`,
      body: obj,
      ...signalOf(options),
    });
  }
}

/** "localhost:9876" → http://localhost:9876/; http(s) URLs are kept. */
export function parseAddress(s: string): URL {
  const trimmed = s.trim();
  if (trimmed === '')
    throw new Error('the API address is empty; give host:port or a URL such as http://127.0.0.1:9876');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw new Error(
        `the API address "${s}" is not a valid URL; give host:port or a URL such as http://127.0.0.1:9876`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(
        `the API address "${s}" uses ${url.protocol.slice(0, -1)}; only http:// and https:// are supported`,
      );
    }
    return url;
  }
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?):(\d{1,5})$/i.exec(trimmed);
  if (!m || Number(m[3]) > 65_535) {
    throw new Error(
      `the API address "${s}" is not host:port or a URL; give e.g. 127.0.0.1:9876 or https://shepherd.example:9876`,
    );
  }
  return new URL(`http://${trimmed}/`);
}

/** The bearer token in a file (--token-file), trimmed. */
export function readTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `cannot read the token file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}; check the path and its permissions`,
      {
        cause: err,
      },
    );
  }
  const token = text.trim();
  if (token === '') throw new Error(`the token file ${path} is empty; put the bearer token in it`);
  return token;
}

function readCaFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `cannot read the CA bundle ${path} (--certificate-authority): ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      {
        cause: err,
      },
    );
  }
}

function nameOf(obj: { metadata: { name?: string } }): string {
  const name = obj.metadata.name;
  if (name === undefined || name === '') throw new Error('an update needs metadata.name');
  return name;
}

function signalOf(options: RequestOptions | undefined): { signal?: AbortSignal } {
  return options?.signal === undefined ? {} : { signal: options.signal };
}
