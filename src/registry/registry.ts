import { KIND_OF, type Resource, type ResourceTypes } from '../core/kinds.js';
import { silentLogger } from '../core/logger.js';
import type { Store } from '../store/store.js';
import { DeploymentRegistry } from './deployment-registry.js';
import { EventRegistry } from './event-registry.js';
import { LeaseRegistry } from './lease-registry.js';
import { NodeRegistry } from './node-registry.js';
import { PodRegistry } from './pod-registry.js';
import { DEFAULT_POD_ADMISSION } from './pod-strategy.js';
import {
  listObjects,
  type ListOptions,
  type ListResponse,
  type RegistryContext,
  type RegistryDeps,
} from './registry-context.js';
import { waitForRevision } from './fresh-revision.js';
import { watchObjects, type RegistryWatchEvent, type RegistryWatchOptions } from './registry-watch.js';
import { VerdictRegistry } from './verdict-registry.js';
import { ZoneRegistry } from './zone-registry.js';

const DEFAULT_BOOKMARK_INTERVAL_MS = 1000;

/**
 * Resource semantics (Kubernetes' registry/rest strategies): the only place that turns client writes into
 * stored objects. The HTTP routes and LocalApiClient both call it, so the two paths cannot drift apart.
 * Bodies are `unknown` and validated here, once.
 */
export class Registry {
  readonly store: Store;
  readonly nodes: NodeRegistry;
  readonly leases: LeaseRegistry;
  readonly events: EventRegistry;
  readonly zones: ZoneRegistry;
  readonly pods: PodRegistry;
  readonly deployments: DeploymentRegistry;
  readonly verdicts: VerdictRegistry;
  readonly #ctx: RegistryContext;

  constructor(deps: RegistryDeps) {
    this.#ctx = {
      store: deps.store,
      clock: deps.clock,
      random: deps.random,
      log: deps.log ?? silentLogger,
      bookmarkIntervalMs: deps.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS,
      podAdmission: deps.podAdmission ?? DEFAULT_POD_ADMISSION,
    };
    this.store = deps.store;
    this.nodes = new NodeRegistry(this.#ctx);
    this.leases = new LeaseRegistry(this.#ctx);
    this.events = new EventRegistry(this.#ctx);
    this.zones = new ZoneRegistry(this.#ctx);
    this.pods = new PodRegistry(this.#ctx);
    this.deployments = new DeploymentRegistry(this.#ctx, this.pods);
    this.verdicts = new VerdictRegistry(this.#ctx);
  }

  /** Lists any resource with label/field selectors (and a namespace for a namespaced kind). */
  list<R extends Resource>(resource: R, options?: ListOptions): Promise<ListResponse<ResourceTypes[R]>> {
    return listObjects(
      this.#ctx,
      resource,
      KIND_OF[resource].namespaced ? options : { ...options, namespace: undefined },
    );
  }

  /** Waits (boundedly) until the store has reached `revision`; else 504 Timeout (fresh-revision.ts). */
  waitForRevision(revision: number): Promise<void> {
    return waitForRevision(this.#ctx, revision);
  }

  /** Throws BadRequestError at once for a bad selector or resourceVersion; the iterator throws GoneError. */
  watch<R extends Resource>(
    resource: R,
    options?: RegistryWatchOptions,
  ): AsyncIterable<RegistryWatchEvent<ResourceTypes[R]>> {
    return watchObjects(
      this.#ctx,
      resource,
      KIND_OF[resource].namespaced ? options : { ...options, namespace: undefined },
    );
  }
}
