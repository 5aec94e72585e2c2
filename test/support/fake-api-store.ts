import { randomUUID } from 'node:crypto';
import type { ListOptions, ObjectList, WatchRequest } from '../../src/client/api-client.js';
import { BadRequestError, GoneError, NotFoundError } from '../../src/core/errors.js';
import { KIND_OF, keyOf, RESOURCES, type Resource } from '../../src/core/kinds.js';
import { NODE_LEASE_NAMESPACE } from '../../src/core/lease.js';
import { DEFAULT_NAMESPACE } from '../../src/core/pod.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../src/core/selectors.js';
import { FakeWatches, type ChangeType } from './fake-watches.js';
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

/** What FakeApiStore is seeded with: objects per resource (their resourceVersions kept), and the clock. */
export type FakeApiStoreOptions = Partial<Record<Resource, readonly unknown[]>> & {
  /** Wall time for creationTimestamp (default Date.now). */
  now?: () => number;
  /** The revision after seeding, if higher than every seeded resourceVersion (as if older history existed). */
  revision?: number;
};

/**
 * The server side of FakeApiClient (fake-api-client.ts): what the fake API server holds and how it answers reads.
 * One global revision; the objects by store key; `put` and `remove` as another writer would write; watches that see
 * every write, replay history after their resourceVersion and fail with Gone from before `compact()` (and streams a
 * test scripts through `watches()`); paged lists read from a snapshot; in-process listeners (`onChange`). Every call
 * is recorded, and `failNext` and `failAll` inject errors. FakeApiClient adds the typed clients and the write rules.
 */
export class FakeApiStore {
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
  /** Lists with pages still to come, by id: the objects as they were at the first page (the server's snapshot). */
  readonly #listsInProgress = new Map<number, { revision: number; items: StoredObject[] }>();
  #listSeq = 0;
  /** Hook run before every call (after recording it), e.g. to simulate a concurrent writer. */
  beforeCall: ((call: Call) => void) | undefined;
  readonly now: () => number;

  constructor(options: FakeApiStoreOptions = {}) {
    this.now = options.now ?? (() => Date.now());
    for (const resource of RESOURCES) {
      for (const o of (options[resource] ?? []) as unknown as StoredObject[]) {
        const obj = structuredClone(o);
        this.data[resource].set(this.keyOf(resource, obj.metadata.name, obj.metadata.namespace), obj);
        this.#revision = Math.max(this.#revision, Number(obj.metadata.resourceVersion) || 0);
      }
    }
    this.#revision = Math.max(this.#revision, options.revision ?? 0);
    this.#watches = new FakeWatches(this.#revision);
  }

  /** The newest revision (of any resource), as a list reports it. */
  get revision(): number {
    return this.#revision;
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
    if (KIND_OF[resource].namespaced) o.metadata.namespace ??= this.defaultNamespace(resource);
    const key = this.keyOf(resource, o.metadata.name, o.metadata.namespace);
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
    const key = this.keyOf(resource, name, namespace);
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
  protected keyOf(resource: Resource, name: string, namespace?: string): string {
    return keyOf(resource, { metadata: { name, namespace: namespace ?? this.defaultNamespace(resource) } });
  }

  protected defaultNamespace(resource: Resource): string {
    return resource === 'leases' ? NODE_LEASE_NAMESPACE : DEFAULT_NAMESPACE;
  }

  #commit(resource: Resource, type: ChangeType, obj: StoredObject): void {
    this.#watches.record({ revision: this.#revision, resource, type, object: obj });
    for (const l of this.#listeners) l(resource, type, structuredClone(obj));
  }

  protected record(fields: Call): void {
    // Only the fields given, so a test can deepEqual a call without spelling out `undefined`s.
    const call = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as unknown as Call;
    this.calls.push(call);
    this.beforeCall?.(call);
    this.fail(call.resource, call.op);
  }

  protected fail(resource: Resource | undefined, op: Op | undefined): void {
    const f = this.#failures.find(
      (x) => (x.resource === undefined || x.resource === resource) && (x.op === undefined || x.op === op),
    );
    if (!f) return;
    if (--f.times <= 0) this.#failures.splice(this.#failures.indexOf(f), 1);
    throw f.error;
  }

  protected mustGet(resource: Resource, name: string, namespace?: string): StoredObject {
    const o = this.data[resource].get(this.keyOf(resource, name, namespace));
    if (!o) throw new NotFoundError(resource, name);
    return o;
  }

  protected watch<T>(resource: Resource, namespace: string | undefined, request: WatchRequest): WatchFeed<T> {
    const { labelSelector, fieldSelector, resourceVersion } = request;
    try {
      this.record({ resource, op: 'watch', name: '', namespace, labelSelector, fieldSelector, resourceVersion });
    } catch (err) {
      const refused = new WatchFeed<T>(request);
      refused.fail(err);
      return refused;
    }
    return this.#watches.open<T>(resource, namespace, request, () => ({
      revision: this.#revision,
      objects: this.list(resource, namespace, {}),
    }));
  }

  protected list(resource: Resource, namespace: string | undefined, options: ListOptions): StoredObject[] {
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
  protected page<T>(resource: Resource, namespace: string | undefined, options: ListOptions): ObjectList<T> {
    const { labelSelector, fieldSelector, limit } = options;
    const token = options.continue;
    this.record({ resource, op: 'list', name: '', namespace, labelSelector, fieldSelector, limit, continue: token });
    let id: number;
    let offset = 0;
    let list: { revision: number; items: StoredObject[] } | undefined;
    if (token === undefined || token === '') {
      id = ++this.#listSeq;
      list = { revision: this.#revision, items: this.list(resource, namespace, options) };
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
}
