import { isAbortError } from '../core/clock.js';
import type { Deployment } from '../core/deployment.js';
import type { Event } from '../core/event.js';
import type { Lease } from '../core/lease.js';
import type { Resource, ResourceTypes } from '../core/kinds.js';
import { KIND_OF } from '../core/kinds.js';
import type { Node } from '../core/node.js';
import type { Pod } from '../core/pod.js';
import type { Verdict } from '../core/verdict.js';
import type { Zone } from '../core/zone.js';
import type { DeleteOptions as RegistryDeleteOptions, ListResponse } from '../registry/registry-context.js';
import type { Registry } from '../registry/registry.js';
import type {
  ApiClient,
  DeleteOptions,
  DeploymentClient,
  ListOptions,
  NodeClient,
  ObjectList,
  PodClient,
  ResourceClient,
  VersionInfo,
  WatchEvent,
  WatchRequest,
  Writable,
} from './api-client.js';
import { LeaseClients } from './lease-clients.js';
import { NamespacedClients, spanningDeploymentClient, spanningPodClient } from './namespaced-clients.js';
import { listAll, listPages } from './list-pages.js';

export interface LocalApiClientDeps {
  registry: Registry;
  version?: string;
  gitCommit?: string;
}

/** The calls a ResourceClient needs from one resource's registry, with the namespace (if any) already bound. */
interface Ops<T> {
  get(name: string): Promise<T>;
  create(body: unknown): Promise<T>;
  update(name: string, body: unknown): Promise<T>;
  delete(name: string, options: RegistryDeleteOptions): Promise<T>;
}

function nameOf(obj: { metadata: { name?: string } }): string {
  return obj.metadata.name ?? '';
}

/** The client's DeleteOptions in the registry's terms. */
function registryDeleteOptions(options: DeleteOptions | undefined): RegistryDeleteOptions {
  return { expectedResourceVersion: options?.resourceVersion, gracePeriodSeconds: options?.gracePeriodSeconds };
}

function toList<R extends Resource>(resource: R, list: ListResponse<ResourceTypes[R]>): ObjectList<ResourceTypes[R]> {
  const { apiVersion, listKind } = KIND_OF[resource];
  const metadata: ObjectList<unknown>['metadata'] = { resourceVersion: list.resourceVersion };
  if (list.continue !== undefined) metadata.continue = list.continue;
  return { apiVersion, kind: listKind, metadata, items: list.items };
}

/**
 * Opens the registry watch on first iteration, as the HTTP client sends its request, so a bad selector
 * surfaces from the iterator too. Ends quietly when the caller aborts; every other error propagates.
 */
async function* untilAborted<T>(open: () => AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  try {
    for await (const ev of open()) {
      if (signal?.aborted) return;
      yield ev;
    }
  } catch (err) {
    if (signal?.aborted && isAbortError(err)) return;
    throw err;
  }
}

/** List and watch of one resource, in one namespace or (namespace undefined) in all of them. */
class LocalListWatch<R extends Resource> {
  protected readonly registry: Registry;
  readonly #resource: R;
  readonly #namespace: string | undefined;

  constructor(registry: Registry, resource: R, namespace?: string) {
    this.registry = registry;
    this.#resource = resource;
    this.#namespace = namespace;
  }

  /** In pages through the registry, as over HTTP: the same limits, the same snapshots, the same 410s. */
  list(options?: ListOptions): Promise<ObjectList<ResourceTypes[R]>> {
    return listAll((o) => this.#page(o), options);
  }

  listPages(options?: ListOptions): AsyncIterable<ObjectList<ResourceTypes[R]>> {
    return listPages((o) => this.#page(o), options);
  }

  async #page(options: ListOptions): Promise<ObjectList<ResourceTypes[R]>> {
    const { labelSelector, fieldSelector, limit } = options;
    const list = await this.registry.list(this.#resource, {
      labelSelector,
      fieldSelector,
      namespace: this.#namespace,
      limit,
      continue: options.continue,
    });
    return toList(this.#resource, list);
  }

  watch(request: WatchRequest): AsyncIterable<WatchEvent<ResourceTypes[R]>> {
    const { resourceVersion, labelSelector, fieldSelector, allowWatchBookmarks, signal } = request;
    const options = {
      resourceVersion,
      labelSelector,
      fieldSelector,
      allowWatchBookmarks,
      signal,
      namespace: this.#namespace,
    };
    return untilAborted(() => this.registry.watch(this.#resource, options), signal);
  }
}

class LocalResourceClient<R extends Resource> extends LocalListWatch<R> implements ResourceClient<ResourceTypes[R]> {
  readonly #ops: Ops<ResourceTypes[R]>;

  constructor(registry: Registry, resource: R, ops: Ops<ResourceTypes[R]>, namespace?: string) {
    super(registry, resource, namespace);
    this.#ops = ops;
  }

  get(name: string): Promise<ResourceTypes[R]> {
    return this.#ops.get(name);
  }

  create(obj: Writable<ResourceTypes[R]>): Promise<ResourceTypes[R]> {
    return this.#ops.create(obj);
  }

  update(obj: Writable<ResourceTypes[R]>): Promise<ResourceTypes[R]> {
    return this.#ops.update(nameOf(obj), obj);
  }

  delete(name: string, options?: DeleteOptions): Promise<ResourceTypes[R]> {
    return this.#ops.delete(name, registryDeleteOptions(options));
  }
}

class LocalNodeClient extends LocalResourceClient<'nodes'> implements NodeClient {
  constructor(registry: Registry) {
    super(registry, 'nodes', {
      get: (name) => registry.nodes.get(name),
      create: (body) => registry.nodes.create(body),
      update: (name, body) => registry.nodes.update(name, body),
      delete: (name, options) => registry.nodes.delete(name, options),
    });
  }

  updateStatus(obj: Writable<Node>): Promise<Node> {
    return this.registry.nodes.updateStatus(nameOf(obj), obj);
  }
}

class LocalPodClient extends LocalResourceClient<'pods'> implements PodClient {
  readonly #namespace: string;

  constructor(registry: Registry, namespace: string) {
    const pods = registry.pods;
    super(
      registry,
      'pods',
      {
        get: (name) => pods.get(namespace, name),
        create: (body) => pods.create(namespace, body),
        update: (name, body) => pods.update(namespace, name, body),
        delete: (name, options) => pods.delete(namespace, name, options),
      },
      namespace,
    );
    this.#namespace = namespace;
  }

  updateStatus(obj: Writable<Pod>): Promise<Pod> {
    return this.registry.pods.updateStatus(this.#namespace, nameOf(obj), obj);
  }

  bind(name: string, nodeName: string): Promise<Pod> {
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: nodeName } };
    return this.registry.pods.bind(this.#namespace, name, binding);
  }
}

class LocalDeploymentClient extends LocalResourceClient<'deployments'> implements DeploymentClient {
  readonly #namespace: string;

  constructor(registry: Registry, namespace: string) {
    const deployments = registry.deployments;
    super(
      registry,
      'deployments',
      {
        get: (name) => deployments.get(namespace, name),
        create: (body) => deployments.create(namespace, body),
        update: (name, body) => deployments.update(namespace, name, body),
        delete: (name, options) => deployments.delete(namespace, name, options),
      },
      namespace,
    );
    this.#namespace = namespace;
  }

  updateStatus(obj: Writable<Deployment>): Promise<Deployment> {
    return this.registry.deployments.updateStatus(this.#namespace, nameOf(obj), obj);
  }
}

/**
 * ApiClient straight over the server's Registry: the same validation, defaults and errors as HTTP, with no
 * HTTP. The node lifecycle controller uses it when it runs inside the server process.
 */
export class LocalApiClient implements ApiClient {
  readonly nodes: NodeClient;
  readonly events: ResourceClient<Event>;
  readonly zones: ResourceClient<Zone>;
  readonly verdicts: ResourceClient<Verdict>;
  readonly #deps: LocalApiClientDeps;
  readonly #leases = new LeaseClients((namespace) => {
    const { registry } = this.#deps;
    const leases = registry.leases;
    return new LocalResourceClient(
      registry,
      'leases',
      {
        get: (name) => leases.get(namespace, name),
        create: (body) => leases.create(namespace, body),
        update: (name, body) => leases.update(namespace, name, body),
        delete: (name, options) => leases.delete(namespace, name, options),
      },
      namespace,
    );
  });
  readonly #pods: NamespacedClients<PodClient> = new NamespacedClients(
    (namespace): PodClient => new LocalPodClient(this.#deps.registry, namespace),
    (): PodClient => spanningPodClient(new LocalListWatch(this.#deps.registry, 'pods'), (ns) => this.#pods.get(ns)),
  );
  readonly #deployments: NamespacedClients<DeploymentClient> = new NamespacedClients(
    (namespace): DeploymentClient => new LocalDeploymentClient(this.#deps.registry, namespace),
    (): DeploymentClient =>
      spanningDeploymentClient(new LocalListWatch(this.#deps.registry, 'deployments'), (ns) =>
        this.#deployments.get(ns),
      ),
  );

  constructor(deps: LocalApiClientDeps) {
    this.#deps = deps;
    const { registry } = deps;
    this.nodes = new LocalNodeClient(registry);
    this.events = new LocalResourceClient(registry, 'events', {
      get: (name) => registry.events.get(name),
      create: (body) => registry.events.create(body),
      update: (name, body) => registry.events.update(name, body),
      delete: (name, options) => registry.events.delete(name, options),
    });
    this.zones = new LocalResourceClient(registry, 'zones', {
      get: (name) => registry.zones.get(name),
      create: (body) => registry.zones.create(body),
      update: (name, body) => registry.zones.update(name, body),
      delete: (name, options) => registry.zones.delete(name, options),
    });
    this.verdicts = new LocalResourceClient(registry, 'verdicts', {
      get: (name) => registry.verdicts.get(name),
      create: (body) => registry.verdicts.create(body),
      update: (name, body) => registry.verdicts.update(name, body),
      delete: (name, options) => registry.verdicts.delete(name, options),
    });
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

  async version(): Promise<VersionInfo> {
    const info: VersionInfo = { version: this.#deps.version ?? 'local', storage: this.#deps.registry.store.kind };
    if (this.#deps.gitCommit !== undefined) info.gitCommit = this.#deps.gitCommit;
    return info;
  }

  /** The registry and its store belong to the server; nothing to release here. */
  async close(): Promise<void> {}
}
