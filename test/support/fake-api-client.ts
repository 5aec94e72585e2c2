import { randomUUID } from 'node:crypto';
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
} from '../../src/client/api-client.js';
import { NamespacedClients, spanningDeploymentClient, spanningPodClient } from '../../src/client/namespaced-clients.js';
import type { Deployment } from '../../src/core/deployment.js';
import { listAll, listPages } from '../../src/client/list-pages.js';
import { AlreadyExistsError, ConflictError, InvalidError } from '../../src/core/errors.js';
import type { Event } from '../../src/core/event.js';
import { KIND_OF, type Resource } from '../../src/core/kinds.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
import type { Pod } from '../../src/core/pod.js';
import type { Verdict } from '../../src/core/verdict.js';
import type { Zone } from '../../src/core/zone.js';
import { bindPod, DEFAULT_POD_ADMISSION, planPodDeletion, type PodAdmission } from '../../src/registry/pod-strategy.js';
import { FakeApiStore, type StoredObject } from './fake-api-store.js';
import { prepareCreate, prepareStatusUpdate, prepareUpdate } from './fake-workloads.js';

export interface FakeApiClientOptions {
  /** Wall time for creationTimestamp (default Date.now). */
  now?: () => number;
  /** The revision after seeding, if higher than every seeded resourceVersion (as if older history existed). */
  revision?: number;
  nodes?: Node[];
  leases?: Lease[];
  events?: Event[];
  zones?: Zone[];
  pods?: Pod[];
  deployments?: Deployment[];
  verdicts?: Verdict[];
  version?: VersionInfo;
  /** The default tolerations pods get on create and update (the server's defaults); false: none. */
  podAdmission?: PodAdmission | false;
}

/**
 * An in-memory ApiClient with the API's semantics, for unit tests of sheepctl, the agent and the controller. What
 * the server holds, its reads, watches, paging, call log and injected failures are FakeApiStore's
 * (fake-api-store.ts); this adds the typed clients and the server's write rules: optimistic locking (409 on a stale
 * resourceVersion, Invalid without one), NotFound, AlreadyExists, PUT ignoring status (nodes, pods, deployments),
 * server-named Events and Verdicts, and the server's pod rules (admission, spec immutability, binding, graceful
 * deletion, a Deployment's cascade) through the registry's own pure functions (test/support/fake-workloads.ts).
 * Seeded objects keep their resourceVersions.
 */
export class FakeApiClient extends FakeApiStore implements ApiClient {
  #eventSeq = 0;
  readonly #admission: PodAdmission | false;
  versionInfo: VersionInfo;
  closed = false;
  readonly nodes: NodeClient;
  readonly events: ResourceClient<Event>;
  readonly zones: ResourceClient<Zone>;
  readonly verdicts: ResourceClient<Verdict>;
  readonly #pods: NamespacedClients<PodClient> = new NamespacedClients(
    (ns): PodClient => this.#podClient(ns),
    (): PodClient => spanningPodClient(this.#resource<Pod>('pods'), (ns) => this.#pods.get(ns)),
  );
  readonly #deployments: NamespacedClients<DeploymentClient> = new NamespacedClients(
    (ns): DeploymentClient => ({
      ...this.#resource<Deployment>('deployments', ns),
      updateStatus: (obj) => this.#updateStatus('deployments', obj, ns) as Promise<Deployment>,
    }),
    (): DeploymentClient =>
      spanningDeploymentClient(this.#resource<Deployment>('deployments'), (ns) => this.#deployments.get(ns)),
  );

  constructor(options: FakeApiClientOptions = {}) {
    super(options);
    this.#admission = options.podAdmission ?? DEFAULT_POD_ADMISSION;
    this.versionInfo = options.version ?? { version: '0.1.0', gitCommit: 'abc1234', storage: 'sqlite' };
    const nodes = this.#resource<Node>('nodes');
    this.nodes = { ...nodes, updateStatus: (obj) => this.#updateStatus('nodes', obj) as Promise<Node> };
    this.events = this.#resource<Event>('events');
    this.zones = this.#resource<Zone>('zones');
    this.verdicts = this.#resource<Verdict>('verdicts');
  }

  leases(namespace = NODE_LEASE_NAMESPACE): ResourceClient<Lease> {
    return this.#resource<Lease>('leases', namespace);
  }

  pods(namespace?: string): PodClient {
    return this.#pods.get(namespace);
  }

  deployments(namespace?: string): DeploymentClient {
    return this.#deployments.get(namespace);
  }

  async version(): Promise<VersionInfo> {
    this.fail(undefined, undefined);
    return this.versionInfo;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  #replace(resource: Resource, obj: StoredObject, expectedRv: string | undefined): StoredObject {
    const cur = this.mustGet(resource, obj.metadata.name, obj.metadata.namespace);
    if (expectedRv === undefined || expectedRv === '') {
      throw new InvalidError('metadata.resourceVersion: must be specified for an update', [
        { field: 'metadata.resourceVersion', message: 'must be specified for an update' },
      ]);
    }
    if (cur.metadata.resourceVersion !== expectedRv) throw new ConflictError(resource, obj.metadata.name);
    const next = structuredClone(obj);
    next.metadata = { ...next.metadata, uid: cur.metadata.uid, creationTimestamp: cur.metadata.creationTimestamp };
    return this.put(resource, next);
  }

  async #updateStatus<T>(resource: Resource, obj: Writable<T>, namespace?: string): Promise<T> {
    const meta = (obj as { metadata: { name?: string; resourceVersion?: string } }).metadata;
    const name = meta.name ?? '';
    this.record({ resource, op: 'updateStatus', name, namespace });
    const cur = this.mustGet(resource, name, namespace);
    const next = prepareStatusUpdate(resource, obj as never, cur as never) as unknown as StoredObject;
    return this.#replace(resource, next, meta.resourceVersion) as unknown as T;
  }

  #podClient(namespace: string): PodClient {
    return {
      ...this.#resource<Pod>('pods', namespace),
      updateStatus: (obj) => this.#updateStatus('pods', obj, namespace) as Promise<Pod>,
      bind: async (name, nodeName) => {
        this.record({ resource: 'pods', op: 'bind', name, namespace });
        if (!this.data.nodes.has(nodeName)) {
          throw new InvalidError(`Binding "${name}" is invalid: target.name: node "${nodeName}" does not exist`, [
            { field: 'target.name', message: `node "${nodeName}" does not exist` },
          ]);
        }
        const pod = this.mustGet('pods', name, namespace) as unknown as Pod;
        return this.put('pods', bindPod(pod, nodeName, this.now()));
      },
    };
  }

  /** DELETE as the server does it: preconditions, graceful pod deletion, a Deployment's cascade to its pods. */
  #delete<T>(resource: Resource, name: string, namespace: string | undefined, options: DeleteOptions): T {
    const cur = this.mustGet(resource, name, namespace);
    if (options.resourceVersion !== undefined && options.resourceVersion !== cur.metadata.resourceVersion) {
      throw new ConflictError(resource, name);
    }
    if (resource === 'pods') {
      const pod = cur as unknown as Pod;
      const node = this.data.nodes.get(pod.spec.nodeName ?? '') as unknown as Node | undefined;
      const plan = planPodDeletion(pod, node, options.gracePeriodSeconds, this.now());
      if (plan.kind === 'mark') return this.put('pods', plan.pod) as unknown as T;
      if (plan.kind === 'unchanged') return structuredClone(cur) as unknown as T;
    }
    const gone = this.remove<T>(resource, name, namespace);
    if (resource === 'deployments') {
      for (const pod of this.list('pods', namespace, {})) {
        if (pod.metadata.ownerReferences?.some((o) => o.uid === cur.metadata.uid)) {
          this.#delete('pods', pod.metadata.name, namespace, {});
        }
      }
    }
    return gone;
  }

  #resource<T>(resource: Resource, namespace?: string): ResourceClient<T> {
    const { kind, apiVersion } = KIND_OF[resource];
    const page = async (options: ListOptions): Promise<ObjectList<T>> => this.page<T>(resource, namespace, options);
    const withNamespace = (obj: Writable<T>): StoredObject => {
      const o = structuredClone(obj) as unknown as StoredObject;
      // Events and Verdicts may come without metadata: the server names them.
      o.metadata ??= {} as StoredObject['metadata'];
      if (namespace !== undefined) o.metadata.namespace ??= namespace;
      return o;
    };
    return {
      get: async (name: string) => {
        this.record({ resource, op: 'get', name, namespace });
        return structuredClone(this.mustGet(resource, name, namespace)) as unknown as T;
      },
      list: (options?: ListOptions) => listAll(page, options),
      listPages: (options?: ListOptions) => listPages(page, options),
      create: async (obj: Writable<T>) => {
        const o = withNamespace(obj);
        // The API names an Event `<involvedObject.name>.<suffix>` when the body has none.
        const involved = (o as { involvedObject?: { name: string } }).involvedObject;
        if (resource === 'events' && !o.metadata.name && involved) {
          o.metadata.name = `${involved.name}.${(++this.#eventSeq).toString(16).padStart(8, '0')}`;
        }
        if (KIND_OF[resource].namespaced) o.metadata.namespace ||= this.defaultNamespace(resource);
        prepareCreate(resource, o as never, this.#admission, ++this.#eventSeq);
        this.record({ resource, op: 'create', name: o.metadata.name, namespace });
        if (this.data[resource].has(this.keyOf(resource, o.metadata.name, o.metadata.namespace))) {
          throw new AlreadyExistsError(resource, o.metadata.name);
        }
        Object.assign(o, { apiVersion, kind });
        o.metadata.uid = randomUUID();
        o.metadata.creationTimestamp = new Date(this.now()).toISOString();
        return this.put(resource, o) as unknown as T;
      },
      update: async (obj: Writable<T>) => {
        const o = withNamespace(obj);
        this.record({ resource, op: 'update', name: o.metadata.name, namespace });
        const cur = this.mustGet(resource, o.metadata.name, o.metadata.namespace);
        if (cur.metadata.resourceVersion !== o.metadata.resourceVersion && o.metadata.resourceVersion) {
          throw new ConflictError(resource, o.metadata.name);
        }
        const next = prepareUpdate(resource, o as never, cur as never, this.#admission) as unknown as StoredObject;
        return this.#replace(resource, next, o.metadata.resourceVersion) as unknown as T;
      },
      delete: async (name: string, options: DeleteOptions = {}) => {
        this.record({ resource, op: 'delete', name, namespace });
        return this.#delete<T>(resource, name, namespace, options);
      },
      watch: (request: WatchRequest): AsyncIterable<WatchEvent<T>> => this.watch<T>(resource, namespace, request),
    };
  }
}
