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
import { NotFoundError } from '../../src/core/errors.js';
import type { Event } from '../../src/core/event.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../src/core/selectors.js';
import type { Zone } from '../../src/core/zone.js';

type Obj = { kind: string; metadata: { name: string; resourceVersion: string; labels?: Record<string, string> } };

/** A watch stream a test feeds by hand: push events, fail it, or end it. Ends when the request's signal aborts. */
export class WatchFeed<T> implements AsyncIterable<WatchEvent<T>> {
  readonly request: WatchRequest;
  #queue: Array<{ ev?: WatchEvent<T>; err?: unknown; end?: boolean }> = [];
  #wake: (() => void) | undefined;

  constructor(request: WatchRequest) {
    this.request = request;
    request.signal?.addEventListener('abort', () => this.end(), { once: true });
  }

  push(ev: WatchEvent<T>): void {
    this.#queue.push({ ev });
    this.#wake?.();
  }
  fail(err: unknown): void {
    this.#queue.push({ err });
    this.#wake?.();
  }
  end(): void {
    this.#queue.push({ end: true });
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    for (;;) {
      const next = this.#queue.shift();
      if (next === undefined) {
        await new Promise<void>((r) => (this.#wake = r));
        continue;
      }
      if (next.end) return;
      if (next.err !== undefined) throw next.err;
      yield next.ev as WatchEvent<T>;
    }
  }
}

/** An in-memory ResourceClient: honours label and field selectors, records calls, can be made to fail. */
export class FakeResource<T extends Obj> implements ResourceClient<T> {
  readonly objects = new Map<string, T>();
  readonly feeds: WatchFeed<T>[] = [];
  readonly calls: string[] = [];
  resourceVersion = '100';
  /** Every call throws this while set. */
  failWith: unknown;
  /** Called when a watch opens, so a test can react (e.g. push an event). */
  onWatch: ((feed: WatchFeed<T>) => void) | undefined;

  constructor(
    readonly kind: string,
    items: T[] = [],
  ) {
    for (const i of items) this.objects.set(i.metadata.name, i);
  }

  #check(call: string): void {
    this.calls.push(call);
    if (this.failWith !== undefined) throw this.failWith;
  }

  async get(name: string, _o?: RequestOptions): Promise<T> {
    this.#check(`get ${name}`);
    const o = this.objects.get(name);
    if (!o) throw new NotFoundError(this.kind, name);
    return structuredClone(o);
  }

  async list(options: ListOptions = {}): Promise<ObjectList<T>> {
    this.#check(`list ${options.labelSelector ?? ''}|${options.fieldSelector ?? ''}`);
    const labels = parseLabelSelector(options.labelSelector);
    const fields = parseFieldSelector(options.fieldSelector);
    const items = [...this.objects.values()]
      .filter((o) => matchesLabels(labels, o.metadata.labels) && matchesFields(fields, o))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
      .map((o) => structuredClone(o));
    return { apiVersion: 'v1', kind: `${this.kind}List`, metadata: { resourceVersion: this.resourceVersion }, items };
  }

  async create(obj: Writable<T>): Promise<T> {
    this.#check('create');
    const o = obj as unknown as T;
    this.objects.set(o.metadata.name, o);
    return o;
  }

  async update(obj: Writable<T>): Promise<T> {
    return this.create(obj);
  }

  async delete(name: string): Promise<T> {
    const o = await this.get(name);
    this.calls.push(`delete ${name}`);
    this.objects.delete(name);
    return o;
  }

  watch(request: WatchRequest): AsyncIterable<WatchEvent<T>> {
    this.calls.push(`watch rv=${request.resourceVersion ?? ''}`);
    if (this.failWith !== undefined) {
      const err = this.failWith;
      return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(err) }) };
    }
    const feed = new WatchFeed<T>(request);
    this.feeds.push(feed);
    this.onWatch?.(feed);
    return feed;
  }
}

class FakeNodes extends FakeResource<Node> implements NodeClient {
  async updateStatus(obj: Writable<Node>): Promise<Node> {
    return this.update(obj);
  }
}

export interface FakeClientData {
  nodes?: Node[];
  leases?: Lease[];
  events?: Event[];
  zones?: Zone[];
  version?: VersionInfo;
}

export class FakeApiClient implements ApiClient {
  readonly nodes: FakeNodes;
  readonly events: FakeResource<Event>;
  readonly zones: FakeResource<Zone>;
  readonly leaseNamespaces = new Map<string, FakeResource<Lease>>();
  versionInfo: VersionInfo;
  closed = false;

  constructor(data: FakeClientData = {}) {
    this.nodes = new FakeNodes('Node', data.nodes ?? []);
    this.events = new FakeResource<Event>('Event', data.events ?? []);
    this.zones = new FakeResource<Zone>('Zone', data.zones ?? []);
    for (const l of data.leases ?? []) this.leases(l.metadata.namespace).objects.set(l.metadata.name, l);
    this.versionInfo = data.version ?? { version: '0.1.0', gitCommit: 'abc1234', storage: 'sqlite' };
  }

  leases(namespace: string = NODE_LEASE_NAMESPACE): FakeResource<Lease> {
    let r = this.leaseNamespaces.get(namespace);
    if (!r) {
      r = new FakeResource<Lease>('Lease');
      this.leaseNamespaces.set(namespace, r);
    }
    return r;
  }

  /** Makes every resource (and version) throw `err`, as an unreachable server would. */
  failAll(err: unknown): void {
    this.failure = err;
    for (const r of [this.nodes, this.events, this.zones, ...this.leaseNamespaces.values()]) r.failWith = err;
  }
  failure: unknown;

  async version(): Promise<VersionInfo> {
    if (this.failure !== undefined) throw this.failure;
    return this.versionInfo;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
