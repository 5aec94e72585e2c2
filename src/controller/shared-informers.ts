import type { ApiClient, ResourceClient } from '../client/api-client.js';
import { Informer } from '../client/informer.js';
import type { Clock } from '../core/clock.js';
import type { Deployment } from '../core/deployment.js';
import { keyOf, type Resource } from '../core/kinds.js';
import type { Lease } from '../core/lease.js';
import type { Logger } from '../core/logger.js';
import type { Node } from '../core/node.js';
import type { Pod } from '../core/pod.js';
import type { Random } from '../core/random.js';

export interface SharedInformersDeps {
  client: ApiClient;
  clock: Clock;
  log: Logger;
  random?: Random;
}

type Meta = { metadata: { name: string; namespace?: string; resourceVersion: string } };

/**
 * client-go's SharedInformerFactory: one informer (one list + watch, one cache) per resource for every controller
 * of the process, built on first request. Controllers ask for what they read and subscribe with `onEvent` before
 * `start`, so the initial list reaches their handlers too. Pods and Deployments span all namespaces; leases are the
 * node leases. A new set is built for every leader term (docs/node-lifecycle.md#restarts-pauses-failovers).
 */
export class SharedInformers {
  readonly #deps: SharedInformersDeps;
  readonly #informers = new Map<Resource, Informer<Meta>>();
  #running: Promise<unknown> | undefined;

  constructor(deps: SharedInformersDeps) {
    this.#deps = deps;
  }

  nodes(): Informer<Node> {
    return this.#get('nodes', () => this.#deps.client.nodes);
  }

  leases(): Informer<Lease> {
    return this.#get('leases', () => this.#deps.client.leases());
  }

  pods(): Informer<Pod> {
    return this.#get('pods', () => this.#deps.client.pods());
  }

  deployments(): Informer<Deployment> {
    return this.#get('deployments', () => this.#deps.client.deployments());
  }

  /** The resources asked for so far, in the order they were first asked for. */
  resources(): Resource[] {
    return [...this.#informers.keys()];
  }

  /** Runs every informer asked for so far until `signal` aborts; resolves when they have all stopped. */
  start(signal: AbortSignal): Promise<unknown> {
    if (this.#running) throw new Error('shared informers already started: ask for every informer before start');
    this.#running = Promise.all([...this.#informers.values()].map((i) => i.run(signal)));
    return this.#running;
  }

  /** Resolves once every informer has listed; rejects with an AbortError when `signal` aborts first. */
  async waitForSync(signal: AbortSignal): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(signal)));
  }

  #get<T extends Meta>(resource: Resource, client: () => ResourceClient<T>): Informer<T> {
    let informer = this.#informers.get(resource) as Informer<T> | undefined;
    if (informer === undefined) {
      if (this.#running) throw new Error(`informer for ${resource} asked for after start`);
      const { clock, log, random } = this.#deps;
      informer = new Informer<T>({
        client: client(),
        clock,
        log,
        ...(random === undefined ? {} : { random }),
        keyOf: (o) => keyOf(resource, o),
        name: resource,
      });
      this.#informers.set(resource, informer as unknown as Informer<Meta>);
    }
    return informer;
  }
}
