import type { Deployment } from '../core/deployment.js';
import { BadRequestError } from '../core/errors.js';
import { DEFAULT_NAMESPACE, type Pod } from '../core/pod.js';
import type { DeploymentClient, PodClient, ResourceClient, Writable } from './api-client.js';

/**
 * `ApiClient.pods(namespace?)` and `deployments(namespace?)` for every implementation: one client per namespace,
 * built on first use and handed out again after, and one client of all namespaces for `namespace` undefined.
 */
export class NamespacedClients<C> {
  readonly #clients = new Map<string, C>();
  readonly #build: (namespace: string) => C;
  readonly #buildAll: () => C;
  #all: C | undefined;

  constructor(build: (namespace: string) => C, buildAll: () => C) {
    this.#build = build;
    this.#buildAll = buildAll;
  }

  get(namespace?: string): C {
    if (namespace === undefined) return (this.#all ??= this.#buildAll());
    let client = this.#clients.get(namespace);
    if (client === undefined) {
      client = this.#build(namespace);
      this.#clients.set(namespace, client);
    }
    return client;
  }
}

function nameOnlyError(resource: string, name: string): BadRequestError {
  return new BadRequestError(
    `${resource} "${name}" has no namespace: this client spans all namespaces, so ask ${resource}(namespace) for it`,
  );
}

/** The namespace an object's item call goes to on a client of all namespaces; BadRequestError when it has none. */
function namespaceOf(resource: string, obj: { metadata: { name?: string; namespace?: string } }): string {
  const namespace = obj.metadata.namespace;
  if (namespace === undefined || namespace === '') throw nameOnlyError(resource, obj.metadata.name ?? '');
  return namespace;
}

type ListAndWatch<T> = Pick<ResourceClient<T>, 'list' | 'listPages' | 'watch'>;

/**
 * A client of all namespaces: list and watch span them; create goes to obj.metadata.namespace (else `default`);
 * update goes to obj.metadata.namespace; a call that names only an object (get, delete) is a BadRequestError.
 */
function spanning<T, C extends ResourceClient<T>>(
  resource: string,
  all: ListAndWatch<T>,
  inNamespace: (namespace: string) => C,
): ResourceClient<T> {
  return {
    get: async (name) => Promise.reject(nameOnlyError(resource, name)),
    list: (options) => all.list(options),
    listPages: (options) => all.listPages(options),
    watch: (request) => all.watch(request),
    create: async (obj: Writable<T>, options) => {
      const meta = (obj as { metadata: { namespace?: string } }).metadata;
      return inNamespace(
        meta.namespace === undefined || meta.namespace === '' ? DEFAULT_NAMESPACE : meta.namespace,
      ).create(obj, options);
    },
    update: async (obj: Writable<T>, options) =>
      inNamespace(namespaceOf(resource, obj as { metadata: { namespace?: string } })).update(obj, options),
    delete: async (name) => Promise.reject(nameOnlyError(resource, name)),
  };
}

export function spanningPodClient(all: ListAndWatch<Pod>, inNamespace: (namespace: string) => PodClient): PodClient {
  return {
    ...spanning('pods', all, inNamespace),
    updateStatus: async (obj, options) => inNamespace(namespaceOf('pods', obj)).updateStatus(obj, options),
    bind: async (name) => Promise.reject(nameOnlyError('pods', name)),
  };
}

export function spanningDeploymentClient(
  all: ListAndWatch<Deployment>,
  inNamespace: (namespace: string) => DeploymentClient,
): DeploymentClient {
  return {
    ...spanning('deployments', all, inNamespace),
    updateStatus: async (obj, options) => inNamespace(namespaceOf('deployments', obj)).updateStatus(obj, options),
  };
}
