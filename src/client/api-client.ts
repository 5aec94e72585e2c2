import type { Deployment } from '../core/deployment.js';
import type { Event } from '../core/event.js';
import type { Lease } from '../core/lease.js';
import type { Node } from '../core/node.js';
import type { Pod } from '../core/pod.js';
import type { Verdict } from '../core/verdict.js';
import type { Zone } from '../core/zone.js';

/**
 * The typed API every client part uses: the agent, sheepctl and the node lifecycle controller. Two
 * implementations share it: `HttpApiClient` (undici, over the wire) and `LocalApiClient` (in-process, over the
 * server's registry), so the controller runs one code path whether it lives in the server or alone.
 * Errors are the classes of core/errors.ts (NotFoundError, ConflictError, GoneError, ...).
 */
export interface ApiClient {
  readonly nodes: NodeClient;
  /** Node leases (namespace `node-lease`) unless another namespace is named. */
  leases(namespace?: string): ResourceClient<Lease>;
  readonly events: ResourceClient<Event>;
  readonly zones: ResourceClient<Zone>;
  /**
   * Pods of `namespace`. With the namespace omitted, list and watch span all namespaces, create uses
   * obj.metadata.namespace (else `default`), and get/update/updateStatus/delete/bind need the namespace from
   * obj.metadata.namespace: a call that names only a pod throws BadRequestError.
   */
  pods(namespace?: string): PodClient;
  /** Deployments of `namespace`; the same namespace rule as `pods`. */
  deployments(namespace?: string): DeploymentClient;
  /** The node lifecycle controller's decisions (cluster-scoped; written by system:masters only). */
  readonly verdicts: ResourceClient<Verdict>;
  version(options?: RequestOptions): Promise<VersionInfo>;
  close(): Promise<void>;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /**
   * Called with the response headers of a successful answer (the HTTP client only; the in-process client has
   * none). The agent reads `shepherd-node-ready` on its lease renewals this way (docs/node-lifecycle.md#agent-heal).
   */
  onResponseHeaders?: (headers: ResponseHeaders) => void;
}

/** Response headers as undici hands them over: lower-case names. */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface DeleteOptions extends RequestOptions {
  /** Pods: 0 removes at once; otherwise a pod bound to a node is deleted gracefully (deletionTimestamp). */
  gracePeriodSeconds?: number;
  /** Delete only if the object is still at this resourceVersion (Kubernetes preconditions). */
  resourceVersion?: string;
}

export interface SelectorOptions extends RequestOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ListOptions extends SelectorOptions {
  /**
   * One page of at most this many items (the server lowers it to its maximum, docs/api.md#paging), with
   * `metadata.continue` while more remain. `list()` without it reads every page.
   */
  limit?: number;
  /** The `metadata.continue` of the previous page: the next page, at that page's resourceVersion. */
  continue?: string;
}

export interface WatchRequest extends SelectorOptions {
  /** Watch changes after this resourceVersion; "" or "0" starts with an ADDED for every current object. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
}

export interface ObjectList<T> {
  apiVersion: string;
  kind: string;
  /** `continue` is set on a page after which more remain. */
  metadata: { resourceVersion: string; continue?: string };
  items: T[];
}

/** A watch event; ERROR events are thrown from the iterator as the matching error class (GoneError for 410). */
export type WatchEvent<T> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  | { type: 'BOOKMARK'; object: { kind: string; apiVersion: string; metadata: { resourceVersion: string } } };

/** What a create or update sends: server-set metadata fields are optional. */
export type Writable<T> = T extends { metadata: infer M }
  ? Omit<T, 'metadata' | 'apiVersion' | 'kind'> & {
      apiVersion?: string;
      kind?: string;
      metadata: Partial<M> & { name?: string };
    }
  : never;

export interface ResourceClient<T> {
  get(name: string, options?: RequestOptions): Promise<T>;
  /**
   * With `limit`: one page. Without: every page (of DEFAULT_PAGE_SIZE) at one resourceVersion, as one list; a list
   * that expires under it (410 Gone between pages) is started again from the first page, a few times at most.
   */
  list(options?: ListOptions): Promise<ObjectList<T>>;
  /**
   * The pages of one list in order, all at the first page's resourceVersion, for callers that handle a page at a
   * time (`limit`: the page size, default DEFAULT_PAGE_SIZE). Throws GoneError when the list expires midway.
   */
  listPages(options?: ListOptions): AsyncIterable<ObjectList<T>>;
  create(obj: Writable<T>, options?: RequestOptions): Promise<T>;
  /** PUT: obj.metadata.resourceVersion is required (optimistic locking). */
  update(obj: Writable<T>, options?: RequestOptions): Promise<T>;
  delete(name: string, options?: DeleteOptions): Promise<T>;
  /** One watch stream; ends when the server ends it or the signal aborts. */
  watch(request: WatchRequest): AsyncIterable<WatchEvent<T>>;
}

export interface NodeClient extends ResourceClient<Node> {
  /** PUT /status: replaces status only; carries metadata.resourceVersion. */
  updateStatus(obj: Writable<Node>, options?: RequestOptions): Promise<Node>;
}

export interface PodClient extends ResourceClient<Pod> {
  /** PUT /status: replaces status only; carries metadata.resourceVersion. */
  updateStatus(obj: Writable<Pod>, options?: RequestOptions): Promise<Pod>;
  /** POST …/pods/{name}/binding; Conflict when already bound; answers the bound Pod. */
  bind(name: string, nodeName: string, options?: RequestOptions): Promise<Pod>;
}

export interface DeploymentClient extends ResourceClient<Deployment> {
  /** PUT /status: replaces status only; carries metadata.resourceVersion. */
  updateStatus(obj: Writable<Deployment>, options?: RequestOptions): Promise<Deployment>;
}

export interface VersionInfo {
  version: string;
  gitCommit?: string;
  storage: string;
}
