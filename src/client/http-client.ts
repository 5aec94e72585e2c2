import { systemClock, type Clock } from '../core/clock.js';
import type { Deployment } from '../core/deployment.js';
import { ShepherdError } from '../core/errors.js';
import type { Event } from '../core/event.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../core/lease.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { Node } from '../core/node.js';
import type { Pod } from '../core/pod.js';
import { systemRandom, type Random } from '../core/random.js';
import type { Verdict } from '../core/verdict.js';
import type { Zone } from '../core/zone.js';
import type {
  ApiClient,
  DeleteOptions,
  DeploymentClient,
  ListOptions,
  NodeClient,
  ObjectList,
  PodClient,
  RequestOptions,
  ResourceClient,
  VersionInfo,
  WatchEvent,
  WatchRequest,
  Writable,
} from './api-client.js';
import { parseAddress, readCaFile } from './connection-settings.js';
import { HttpTransport } from './http-transport.js';
import { LeaseClients } from './lease-clients.js';
import { NamespacedClients, spanningDeploymentClient, spanningPodClient } from './namespaced-clients.js';
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
  /** undici (default) or node:http, ~20 MB lighter (the agent uses it: docs/architecture.md#memory). */
  sender?: 'undici' | 'node';
}

const DEFAULT_USER_AGENT = 'shepherd-client/0.1.0';

/** The ApiClient over HTTP (docs/api.md), for the agent, sheepctl and a remote controller. */
export class HttpApiClient implements ApiClient {
  readonly nodes: NodeClient;
  readonly events: ResourceClient<Event>;
  readonly zones: ResourceClient<Zone>;
  readonly verdicts: ResourceClient<Verdict>;
  readonly #transport: HttpTransport;
  // Node leases use the short path every server serves; other namespaces the namespaced one.
  readonly #leases = new LeaseClients((namespace) => {
    const base =
      namespace === NODE_LEASE_NAMESPACE
        ? '/api/v1/leases'
        : `/api/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
    return new HttpResourceClient<Lease>(this.#transport, base);
  });
  readonly #pods: NamespacedClients<PodClient> = new NamespacedClients(
    (namespace): PodClient => new HttpPodClient(this.#transport, namespacedPath('/api/v1', namespace, 'pods')),
    (): PodClient =>
      spanningPodClient(new HttpResourceClient(this.#transport, '/api/v1/pods'), (ns) => this.#pods.get(ns)),
  );
  readonly #deployments: NamespacedClients<DeploymentClient> = new NamespacedClients(
    (namespace): DeploymentClient =>
      new HttpDeploymentClient(this.#transport, namespacedPath('/apis/apps/v1', namespace, 'deployments')),
    (): DeploymentClient =>
      spanningDeploymentClient(new HttpResourceClient(this.#transport, '/apis/apps/v1/deployments'), (ns) =>
        this.#deployments.get(ns),
      ),
  );

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
      ...(options.sender === undefined ? {} : { sender: options.sender }),
    });
    this.nodes = new HttpNodeClient(this.#transport, '/api/v1/nodes');
    this.events = new HttpResourceClient<Event>(this.#transport, '/api/v1/events');
    this.zones = new HttpResourceClient<Zone>(this.#transport, '/api/v1/zones');
    this.verdicts = new HttpResourceClient<Verdict>(this.#transport, '/api/v1/verdicts');
  }

  leases(namespace?: string): ResourceClient<Lease> {
    return this.#leases.get(namespace);
  }

  pods(namespace?: string): PodClient {
    return this.#pods.get(namespace);
  }

  deployments(namespace?: string): DeploymentClient {
    return this.#deployments.get(namespace);
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
      ...(options?.onResponseHeaders === undefined ? {} : { onResponseHeaders: options.onResponseHeaders }),
    });
  }

  /** `?gracePeriodSeconds=` and, with a resourceVersion, Kubernetes' preconditions in the body. */
  delete(name: string, options?: DeleteOptions): Promise<T> {
    const grace = options?.gracePeriodSeconds;
    const rv = options?.resourceVersion;
    return this.transport.request<T>({
      method: 'DELETE',
      path: this.itemPath(name),
      ...(grace === undefined ? {} : { query: { gracePeriodSeconds: String(grace) } }),
      ...(rv === undefined ? {} : { body: { preconditions: { resourceVersion: rv } } }),
      ...signalOf(options),
    });
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

/** A resource with a status subresource: `PUT …/{name}/status`. */
class HttpStatusClient<T> extends HttpResourceClient<T> {
  updateStatus(obj: Writable<T>, options?: RequestOptions): Promise<T> {
    return this.transport.request<T>({
      method: 'PUT',
      path: `${this.itemPath(nameOf(obj as { metadata: { name?: string } }))}/status`,
      body: obj,
      ...signalOf(options),
    });
  }
}

class HttpNodeClient extends HttpStatusClient<Node> implements NodeClient {}

class HttpDeploymentClient extends HttpStatusClient<Deployment> implements DeploymentClient {}

class HttpPodClient extends HttpStatusClient<Pod> implements PodClient {
  bind(name: string, nodeName: string, options?: RequestOptions): Promise<Pod> {
    return this.transport.request<Pod>({
      method: 'POST',
      path: `${this.itemPath(name)}/binding`,
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: nodeName } },
      ...signalOf(options),
    });
  }
}

/** `/api/v1/namespaces/{ns}/pods` and the like. */
function namespacedPath(group: string, namespace: string, resource: string): string {
  return `${group}/namespaces/${encodeURIComponent(namespace)}/${resource}`;
}

function nameOf(obj: { metadata: { name?: string } }): string {
  const name = obj.metadata.name;
  if (name === undefined || name === '') throw new Error('an update needs metadata.name');
  return name;
}

function signalOf(options: RequestOptions | undefined): { signal?: AbortSignal } {
  return options?.signal === undefined ? {} : { signal: options.signal };
}
