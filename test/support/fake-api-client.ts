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
import {
  AlreadyExistsError,
  BadRequestError,
  ConflictError,
  GoneError,
  InvalidError,
  NotFoundError,
} from '../../src/core/errors.js';
import type { Event } from '../../src/core/event.js';
import { KIND_OF, keyOf, RESOURCES, type Resource } from '../../src/core/kinds.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
import { DEFAULT_NAMESPACE, type Pod } from '../../src/core/pod.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../src/core/selectors.js';
import type { Verdict } from '../../src/core/verdict.js';
import type { Zone } from '../../src/core/zone.js';
import { bindPod, DEFAULT_POD_ADMISSION, planPodDeletion, type PodAdmission } from '../../src/registry/pod-strategy.js';
import { FakeWatches, type ChangeType } from './fake-watches.js';
import { prepareCreate, prepareStatusUpdate, prepareUpdate } from './fake-workloads.js';
import { WatchFeed } from './watch-feed.js';

export type StoredObject = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion: string;
    uid: string;
    creationTimestamp: string;
    labels?: Record<string, string>;
    ownerReferences?: { uid: string }[];
  };
};
export type Op = 'get' | 'list' | 'create' | 'update' | 'updateStatus' | 'delete' | 'watch' | 'bind';
export interface Call {
  resource: Resource;
  op: Op;
  /** The object's name; '' for list and watch. */
  name: string;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** What a watch asked to start after. */
  resourceVersion?: string;
  /** The page size a list asked for, and the continue token of a later page. */
  limit?: number;
  continue?: string;
}

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
 * An in-memory ApiClient with the API's semantics, for unit tests of sheepctl, the agent and the controller:
 * one global revision, optimistic locking (409 on a stale resourceVersion, Invalid without one), NotFound,
 * AlreadyExists, PUT ignoring status (nodes, pods, deployments), server-named Events and Verdicts, label and field
 * selectors, and the server's pod rules (admission, spec immutability, binding, graceful deletion, a Deployment's
 * cascade) through the registry's own pure functions (test/support/fake-workloads.ts). Watches see
 * every write (`put`, `remove` and the client's own), replay history after their resourceVersion, and fail
 * with Gone from before `compact()`; a test can also script a stream through `watches()` (push, end, fail).
 * Records every call; `failNext` and `failAll` inject errors. Seeded objects keep their resourceVersions.
 */
export class FakeApiClient implements ApiClient {
  // A server that was never written is at revision 1 (as etcd): "0" would mean "from now" to a watch.
  #revision = 1;
  readonly calls: Call[] = [];
  /** What the server holds, by store key (`namespace/name` for leases). Read it; write through put and remove. */
  readonly data: Record<Resource, Map<string, StoredObject>> = {
    nodes: new Map(),
    leases: new Map(),
    events: new Map(),
    zones: new Map(),
    pods: new Map(),
    deployments: new Map(),
    verdicts: new Map(),
  };
  readonly #watches: FakeWatches<StoredObject>;
  readonly #listeners = new Set<(resource: Resource, type: ChangeType, obj: StoredObject) => void>();
  readonly #failures: { resource: Resource | undefined; op: Op | undefined; error: unknown; times: number }[] = [];
  #eventSeq = 0;
  readonly #admission: PodAdmission | false;
  /** Lists with pages still to come, by id: the objects as they were at the first page (the server's snapshot). */
  readonly #listsInProgress = new Map<number, { revision: number; items: StoredObject[] }>();
  #listSeq = 0;
  /** Hook run before every call (after recording it), e.g. to simulate a concurrent writer. */
  beforeCall: ((call: Call) => void) | undefined;
  versionInfo: VersionInfo;
  closed = false;
  readonly now: () => number;
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
    this.now = options.now ?? (() => Date.now());
    this.#admission = options.podAdmission ?? DEFAULT_POD_ADMISSION;
    this.versionInfo = options.version ?? { version: '0.1.0', gitCommit: 'abc1234', storage: 'sqlite' };
    for (const resource of RESOURCES) {
      for (const o of (options[resource] ?? []) as unknown as StoredObject[]) {
        const obj = structuredClone(o);
        this.data[resource].set(this.#keyOf(resource, obj.metadata.name, obj.metadata.namespace), obj);
        this.#revision = Math.max(this.#revision, Number(obj.metadata.resourceVersion) || 0);
      }
    }
    this.#revision = Math.max(this.#revision, options.revision ?? 0);
    this.#watches = new FakeWatches(this.#revision);
    const nodes = this.#resource<Node>('nodes');
    this.nodes = { ...nodes, updateStatus: (obj) => this.#updateStatus('nodes', obj) as Promise<Node> };
    this.events = this.#resource<Event>('events');
    this.zones = this.#resource<Zone>('zones');
    this.verdicts = this.#resource<Verdict>('verdicts');
  }

  /** The newest revision (of any resource), as a list reports it. */
  get revision(): number {
    return this.#revision;
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
    this.#fail(undefined, undefined);
    return this.versionInfo;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** The next `times` calls of op on resource throw `error` (checked before anything else). */
  failNext(resource: Resource, op: Op, error: unknown, times = 1): void {
    this.#failures.push({ resource, op, error, times });
  }

  /** Every call from now on throws `error` (a watch fails with it), as an unreachable server would. */
  failAll(error: unknown): void {
    this.#failures.push({ resource: undefined, op: undefined, error, times: Infinity });
  }

  callsOf(resource: Resource, op?: Op): Call[] {
    return this.calls.filter((c) => c.resource === resource && (op === undefined || c.op === op));
  }

  /** The watch streams opened on resource (and lease namespace), oldest first, open or not. */
  watches<T = StoredObject>(resource: Resource, namespace?: string): WatchFeed<T>[] {
    return this.#watches.feeds<T>(resource, namespace);
  }

  /** Writes an object directly (as another writer would): bumps the revision, tells every watch. */
  put<T>(resource: Resource, obj: T): T {
    const o = structuredClone(obj) as unknown as StoredObject;
    if (KIND_OF[resource].namespaced) o.metadata.namespace ??= this.#defaultNamespace(resource);
    const key = this.#keyOf(resource, o.metadata.name, o.metadata.namespace);
    const prev = this.data[resource].get(key);
    o.metadata.resourceVersion = String(++this.#revision);
    o.metadata.uid ||= prev?.metadata.uid ?? randomUUID();
    o.metadata.creationTimestamp ||= prev?.metadata.creationTimestamp ?? new Date(this.now()).toISOString();
    this.data[resource].set(key, o);
    this.#commit(resource, prev === undefined ? 'ADDED' : 'MODIFIED', o);
    return structuredClone(o) as unknown as T;
  }

  /** Deletes an object directly (as another writer would): bumps the revision, tells every watch. */
  remove<T = StoredObject>(resource: Resource, name: string, namespace?: string): T {
    const key = this.#keyOf(resource, name, namespace);
    const cur = this.data[resource].get(key);
    if (!cur) throw new NotFoundError(resource, name);
    this.data[resource].delete(key);
    const gone = { ...cur, metadata: { ...cur.metadata, resourceVersion: String(++this.#revision) } };
    this.#commit(resource, 'DELETED', gone);
    return structuredClone(gone) as unknown as T;
  }

  /** Forgets history up to now: a watch from an older resourceVersion fails with Gone (410). */
  compact(): void {
    this.#watches.compact(this.#revision);
  }

  /** Forgets every list with pages still to come: the next page of each is 410 Gone (an expired snapshot). */
  expireLists(): void {
    this.#listsInProgress.clear();
  }

  /** Sends a BOOKMARK at the current revision on every open watch of resource that asked for bookmarks. */
  bookmark(resource: Resource): void {
    this.#watches.bookmark(resource, this.#revision);
  }

  /** Calls listener synchronously on every committed change, with its own copy (an in-process watch). */
  onChange(listener: (resource: Resource, type: ChangeType, obj: StoredObject) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The store key (core's codec); a lease without a namespace is a node lease, as `leases()` defaults. */
  #keyOf(resource: Resource, name: string, namespace?: string): string {
    return keyOf(resource, { metadata: { name, namespace: namespace ?? this.#defaultNamespace(resource) } });
  }

  #defaultNamespace(resource: Resource): string {
    return resource === 'leases' ? NODE_LEASE_NAMESPACE : DEFAULT_NAMESPACE;
  }

  #commit(resource: Resource, type: ChangeType, obj: StoredObject): void {
    this.#watches.record({ revision: this.#revision, resource, type, object: obj });
    for (const l of this.#listeners) l(resource, type, structuredClone(obj));
  }

  #record(fields: Call): void {
    // Only the fields given, so a test can deepEqual a call without spelling out `undefined`s.
    const call = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as unknown as Call;
    this.calls.push(call);
    this.beforeCall?.(call);
    this.#fail(call.resource, call.op);
  }

  #fail(resource: Resource | undefined, op: Op | undefined): void {
    const f = this.#failures.find(
      (x) => (x.resource === undefined || x.resource === resource) && (x.op === undefined || x.op === op),
    );
    if (!f) return;
    if (--f.times <= 0) this.#failures.splice(this.#failures.indexOf(f), 1);
    throw f.error;
  }

  #mustGet(resource: Resource, name: string, namespace?: string): StoredObject {
    const o = this.data[resource].get(this.#keyOf(resource, name, namespace));
    if (!o) throw new NotFoundError(resource, name);
    return o;
  }

  #replace(resource: Resource, obj: StoredObject, expectedRv: string | undefined): StoredObject {
    const cur = this.#mustGet(resource, obj.metadata.name, obj.metadata.namespace);
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
    this.#record({ resource, op: 'updateStatus', name, namespace });
    const cur = this.#mustGet(resource, name, namespace);
    const next = prepareStatusUpdate(resource, obj as never, cur as never) as unknown as StoredObject;
    return this.#replace(resource, next, meta.resourceVersion) as unknown as T;
  }

  #podClient(namespace: string): PodClient {
    return {
      ...this.#resource<Pod>('pods', namespace),
      updateStatus: (obj) => this.#updateStatus('pods', obj, namespace) as Promise<Pod>,
      bind: async (name, nodeName) => {
        this.#record({ resource: 'pods', op: 'bind', name, namespace });
        if (!this.data.nodes.has(nodeName)) {
          throw new InvalidError(`Binding "${name}" is invalid: target.name: node "${nodeName}" does not exist`, [
            { field: 'target.name', message: `node "${nodeName}" does not exist` },
          ]);
        }
        const pod = this.#mustGet('pods', name, namespace) as unknown as Pod;
        return this.put('pods', bindPod(pod, nodeName, this.now()));
      },
    };
  }

  /** DELETE as the server does it: preconditions, graceful pod deletion, a Deployment's cascade to its pods. */
  #delete<T>(resource: Resource, name: string, namespace: string | undefined, options: DeleteOptions): T {
    const cur = this.#mustGet(resource, name, namespace);
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
      for (const pod of this.#list('pods', namespace, {})) {
        if (pod.metadata.ownerReferences?.some((o) => o.uid === cur.metadata.uid)) {
          this.#delete('pods', pod.metadata.name, namespace, {});
        }
      }
    }
    return gone;
  }

  #watch<T>(resource: Resource, namespace: string | undefined, request: WatchRequest): WatchFeed<T> {
    const { labelSelector, fieldSelector, resourceVersion } = request;
    try {
      this.#record({ resource, op: 'watch', name: '', namespace, labelSelector, fieldSelector, resourceVersion });
    } catch (err) {
      const refused = new WatchFeed<T>(request);
      refused.fail(err);
      return refused;
    }
    return this.#watches.open<T>(resource, namespace, request, () => ({
      revision: this.#revision,
      objects: this.#list(resource, namespace, {}),
    }));
  }

  #list(resource: Resource, namespace: string | undefined, options: ListOptions): StoredObject[] {
    const labels = parseLabelSelector(options.labelSelector);
    const fields = parseFieldSelector(options.fieldSelector);
    return [...this.data[resource].entries()]
      .filter(([k]) => namespace === undefined || k.startsWith(`${namespace}/`))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => o)
      .filter((o) => matchesLabels(labels, o.metadata.labels) && matchesFields(fields, o));
  }

  /**
   * One page, as the server pages (docs/api.md#paging): a later page is read from the list as it was at the first,
   * its token is opaque (`fake:<list>:<offset>`), a malformed one is BadRequest and an expired one Gone.
   */
  #page<T>(resource: Resource, namespace: string | undefined, options: ListOptions): ObjectList<T> {
    const { labelSelector, fieldSelector, limit } = options;
    const token = options.continue;
    this.#record({ resource, op: 'list', name: '', namespace, labelSelector, fieldSelector, limit, continue: token });
    let id: number;
    let offset = 0;
    let list: { revision: number; items: StoredObject[] } | undefined;
    if (token === undefined || token === '') {
      id = ++this.#listSeq;
      list = { revision: this.#revision, items: this.#list(resource, namespace, options) };
    } else {
      const m = /^fake:(\d+):(\d+)$/.exec(token);
      if (!m) throw new BadRequestError('the continue token is not valid: start the list again without continue');
      id = Number(m[1]);
      offset = Number(m[2]);
      list = this.#listsInProgress.get(id);
      if (!list) throw new GoneError('the list snapshot expired: start the list again without continue');
    }
    const end = limit === undefined || limit <= 0 ? list.items.length : offset + limit;
    const items = structuredClone(list.items.slice(offset, end)) as unknown as T[];
    const { apiVersion, listKind } = KIND_OF[resource];
    const metadata: ObjectList<T>['metadata'] = { resourceVersion: String(list.revision) };
    if (end < list.items.length) {
      // The objects themselves, not copies: a later write replaces an object in `data`, it never changes one.
      this.#listsInProgress.set(id, list);
      metadata.continue = `fake:${id}:${end}`;
    } else {
      this.#listsInProgress.delete(id);
    }
    return { apiVersion, kind: listKind, metadata, items };
  }

  #resource<T>(resource: Resource, namespace?: string): ResourceClient<T> {
    const { kind, apiVersion } = KIND_OF[resource];
    const page = async (options: ListOptions): Promise<ObjectList<T>> => this.#page<T>(resource, namespace, options);
    const withNamespace = (obj: Writable<T>): StoredObject => {
      const o = structuredClone(obj) as unknown as StoredObject;
      // Events and Verdicts may come without metadata: the server names them.
      o.metadata ??= {} as StoredObject['metadata'];
      if (namespace !== undefined) o.metadata.namespace ??= namespace;
      return o;
    };
    return {
      get: async (name: string) => {
        this.#record({ resource, op: 'get', name, namespace });
        return structuredClone(this.#mustGet(resource, name, namespace)) as unknown as T;
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
        if (KIND_OF[resource].namespaced) o.metadata.namespace ||= this.#defaultNamespace(resource);
        prepareCreate(resource, o as never, this.#admission, ++this.#eventSeq);
        this.#record({ resource, op: 'create', name: o.metadata.name, namespace });
        if (this.data[resource].has(this.#keyOf(resource, o.metadata.name, o.metadata.namespace))) {
          throw new AlreadyExistsError(resource, o.metadata.name);
        }
        Object.assign(o, { apiVersion, kind });
        o.metadata.uid = randomUUID();
        o.metadata.creationTimestamp = new Date(this.now()).toISOString();
        return this.put(resource, o) as unknown as T;
      },
      update: async (obj: Writable<T>) => {
        const o = withNamespace(obj);
        this.#record({ resource, op: 'update', name: o.metadata.name, namespace });
        const cur = this.#mustGet(resource, o.metadata.name, o.metadata.namespace);
        if (cur.metadata.resourceVersion !== o.metadata.resourceVersion && o.metadata.resourceVersion) {
          throw new ConflictError(resource, o.metadata.name);
        }
        const next = prepareUpdate(resource, o as never, cur as never, this.#admission) as unknown as StoredObject;
        return this.#replace(resource, next, o.metadata.resourceVersion) as unknown as T;
      },
      delete: async (name: string, options: DeleteOptions = {}) => {
        this.#record({ resource, op: 'delete', name, namespace });
        return this.#delete<T>(resource, name, namespace, options);
      },
      watch: (request: WatchRequest): AsyncIterable<WatchEvent<T>> => this.#watch<T>(resource, namespace, request),
    };
  }
}
