import { NODE_LEASE_NAMESPACE, type Lease } from '../core/lease.js';
import type { ResourceClient } from './api-client.js';

/**
 * `ApiClient.leases(namespace)` for every implementation: one client per namespace, built on first use and
 * handed out again after, so callers may ask for it on every call.
 */
export class LeaseClients {
  readonly #clients = new Map<string, ResourceClient<Lease>>();
  readonly #build: (namespace: string) => ResourceClient<Lease>;

  constructor(build: (namespace: string) => ResourceClient<Lease>) {
    this.#build = build;
  }

  /** Node leases (namespace `node-lease`) unless another namespace is named. */
  get(namespace: string = NODE_LEASE_NAMESPACE): ResourceClient<Lease> {
    let client = this.#clients.get(namespace);
    if (client === undefined) {
      client = this.#build(namespace);
      this.#clients.set(namespace, client);
    }
    return client;
  }
}
