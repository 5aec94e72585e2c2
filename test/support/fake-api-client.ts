import { randomUUID } from 'node:crypto';
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
} from '../../src/client/api-client.js';
import { AlreadyExistsError, ConflictError, InvalidError, NotFoundError } from '../../src/core/errors.js';
import type { Event } from '../../src/core/event.js';
import { KIND_OF, type Resource } from '../../src/core/kinds.js';
import type { Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../src/core/selectors.js';
import type { Zone } from '../../src/core/zone.js';

type Obj = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion: string;
    uid: string;
    creationTimestamp: string;
    labels?: Record<string, string>;
  };
};
export type Op = 'get' | 'list' | 'create' | 'update' | 'updateStatus' | 'delete';
export interface Call {
  resource: Resource;
  op: Op;
  name: string;
  namespace?: string;
}

/**
 * An in-memory ApiClient with the API's semantics (one revision counter, optimistic locking, NotFound,
 * AlreadyExists) for unit tests of the agent and the controller. Records every call; `failNext` injects errors.
 * Time comes from `now` so objects carry fake-clock timestamps.
 */
export class FakeApiClient implements ApiClient {
  revision = 0;
  readonly calls: Call[] = [];
  readonly data: Record<Resource, Map<string, Obj>> = {
    nodes: new Map(),
    leases: new Map(),
    events: new Map(),
    zones: new Map(),
  };
  readonly #failures: { resource: Resource; op: Op; error: Error; times: number }[] = [];
  /** Hook run before every call (after recording it), e.g. to simulate a concurrent writer. */
  beforeCall: ((call: Call) => void) | undefined;
  readonly nodes: NodeClient;
  readonly events: ResourceClient<Event>;
  readonly zones: ResourceClient<Zone>;

  constructor(readonly now: () => number = () => Date.now()) {
    const nodes = this.#resource<Node>('nodes');
    this.nodes = {
      ...nodes,
      updateStatus: async (obj, options) => {
        this.#record('nodes', 'updateStatus', obj.metadata.name ?? '');
        const cur = this.#mustGet('nodes', obj.metadata.name ?? '') as unknown as Node;
        return this.#replace(
          'nodes',
          { ...cur, status: structuredClone(obj.status ?? {}) } as unknown as Obj,
          obj.metadata.resourceVersion,
          options,
        ) as unknown as Node;
      },
    };
    this.events = this.#resource<Event>('events');
    this.zones = this.#resource<Zone>('zones');
  }

  leases(namespace = 'node-lease'): ResourceClient<Lease> {
    return this.#resource<Lease>('leases', namespace);
  }

  async version(): Promise<VersionInfo> {
    return { version: 'fake', storage: 'memory' };
  }

  async close(): Promise<void> {}

  /** The next `times` calls of op on resource throw `error` (checked before anything else). */
  failNext(resource: Resource, op: Op, error: Error, times = 1): void {
    this.#failures.push({ resource, op, error, times });
  }

  callsOf(resource: Resource, op?: Op): Call[] {
    return this.calls.filter((c) => c.resource === resource && (op === undefined || c.op === op));
  }

  /** Writes an object directly (as another writer would), bumping the revision. */
  put<T>(resource: Resource, obj: T): T {
    const o = structuredClone(obj) as unknown as Obj;
    const key = this.#key(resource, o.metadata.name, o.metadata.namespace);
    const prev = this.data[resource].get(key);
    o.metadata.resourceVersion = String(++this.revision);
    o.metadata.uid ??= prev?.metadata.uid ?? randomUUID();
    o.metadata.creationTimestamp ??= prev?.metadata.creationTimestamp ?? new Date(this.now()).toISOString();
    this.data[resource].set(key, o);
    return structuredClone(o) as unknown as T;
  }

  #key(resource: Resource, name: string, namespace?: string): string {
    return resource === 'leases' ? `${namespace ?? 'node-lease'}/${name}` : name;
  }

  #record(resource: Resource, op: Op, name: string, namespace?: string): void {
    const call: Call = namespace === undefined ? { resource, op, name } : { resource, op, name, namespace };
    this.calls.push(call);
    this.beforeCall?.(call);
    const f = this.#failures.find((x) => x.resource === resource && x.op === op);
    if (f) {
      f.times--;
      if (f.times <= 0) this.#failures.splice(this.#failures.indexOf(f), 1);
      throw f.error;
    }
  }

  #mustGet(resource: Resource, name: string, namespace?: string): Obj {
    const o = this.data[resource].get(this.#key(resource, name, namespace));
    if (!o) throw new NotFoundError(resource, name);
    return o;
  }

  #replace(resource: Resource, obj: Obj, expectedRv: string | undefined, _options?: RequestOptions): Obj {
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

  #resource<T>(resource: Resource, namespace?: string): ResourceClient<T> {
    const { kind, apiVersion, listKind } = KIND_OF[resource];
    return {
      get: async (name: string) => {
        this.#record(resource, 'get', name, namespace);
        return structuredClone(this.#mustGet(resource, name, namespace)) as unknown as T;
      },
      list: async (options?: ListOptions): Promise<ObjectList<T>> => {
        this.#record(resource, 'list', '', namespace);
        const labels = parseLabelSelector(options?.labelSelector);
        const fields = parseFieldSelector(options?.fieldSelector);
        const items = [...this.data[resource].entries()]
          .filter(([k]) => namespace === undefined || k.startsWith(`${namespace}/`))
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([, o]) => o)
          .filter((o) => matchesLabels(labels, o.metadata.labels) && matchesFields(fields, o));
        return {
          apiVersion,
          kind: listKind,
          metadata: { resourceVersion: String(this.revision) },
          items: structuredClone(items) as unknown as T[],
        };
      },
      create: async (obj: Writable<T>) => {
        const o = structuredClone(obj) as unknown as Obj;
        if (resource === 'leases') o.metadata.namespace ??= namespace ?? 'node-lease';
        this.#record(resource, 'create', o.metadata.name, namespace);
        if (this.data[resource].has(this.#key(resource, o.metadata.name, o.metadata.namespace))) {
          throw new AlreadyExistsError(resource, o.metadata.name);
        }
        o.apiVersion = apiVersion;
        o.kind = kind;
        o.metadata.uid = randomUUID();
        o.metadata.creationTimestamp = new Date(this.now()).toISOString();
        return this.put(resource, o) as unknown as T;
      },
      update: async (obj: Writable<T>) => {
        const o = structuredClone(obj) as unknown as Obj;
        if (resource === 'leases') o.metadata.namespace ??= namespace ?? 'node-lease';
        this.#record(resource, 'update', o.metadata.name, namespace);
        let next = o;
        if (resource === 'nodes') {
          // PUT on a node ignores status, as the API does.
          const cur = this.#mustGet(resource, o.metadata.name) as unknown as Node;
          next = { ...o, status: cur.status } as unknown as Obj;
        }
        return this.#replace(resource, next, o.metadata.resourceVersion) as unknown as T;
      },
      delete: async (name: string) => {
        this.#record(resource, 'delete', name, namespace);
        const cur = this.#mustGet(resource, name, namespace);
        this.data[resource].delete(this.#key(resource, name, namespace));
        cur.metadata.resourceVersion = String(++this.revision);
        return structuredClone(cur) as unknown as T;
      },
      watch: (_request: WatchRequest): AsyncIterable<WatchEvent<T>> => {
        throw new Error('FakeApiClient does not implement watch: drive caches directly in unit tests');
      },
    };
  }
}

/** An ObjectCache the test fills by hand (the informer's contract without the network). */
export class FakeCache<T extends { metadata: { name: string; namespace?: string; resourceVersion: string } }> {
  readonly #items = new Map<string, T>();
  #rv = '';
  synced = true;

  constructor(
    readonly keyOf: (obj: T) => string = (o) =>
      o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name,
  ) {}

  get(key: string): T | undefined {
    const o = this.#items.get(key);
    return o === undefined ? undefined : structuredClone(o);
  }
  list(): T[] {
    return [...this.#items.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => structuredClone(o));
  }
  /** ObjectCache's read-only view; copies as `list()` does (a test may replace `list`). */
  sortedView(): readonly T[] {
    return this.list();
  }
  lastSyncResourceVersion(): string {
    return this.#rv;
  }
  hasSynced(): boolean {
    return this.synced;
  }
  /** Stores the object and advances the cache revision to its resourceVersion (as a watch event would). */
  set(obj: T): void {
    this.#items.set(this.keyOf(obj), structuredClone(obj));
    this.advance(obj.metadata.resourceVersion);
  }
  remove(key: string, rv?: string): void {
    this.#items.delete(key);
    if (rv !== undefined) this.advance(rv);
  }
  /** A bookmark: the cache has seen everything up to rv. */
  advance(rv: string): void {
    if (this.#rv === '' || Number(rv) > Number(this.#rv)) this.#rv = rv;
  }
}
