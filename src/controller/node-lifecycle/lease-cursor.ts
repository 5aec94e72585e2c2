import { NODE_LEASE_NAMESPACE, type Lease } from '../../core/lease.js';

/**
 * Finds each node's Lease in the lease cache's sorted list while the monitor pass walks the sorted node list:
 * a merge, not a lookup per node. Cache keys are `namespace/name`, so the node leases form one contiguous run,
 * in the same order as node names (a common prefix does not change the order). A lease that is the same
 * object as last pass is recognised by identity alone, without reading it; only a replaced object (a renewal)
 * or a node without a lease costs name comparisons. Nodes must be asked for in name order.
 */
export class LeaseCursor {
  readonly #leases: readonly Lease[];
  readonly #end: number;
  #next: number;

  constructor(sortedLeases: readonly Lease[]) {
    this.#leases = sortedLeases;
    let start = 0;
    let end = sortedLeases.length;
    while (start < end && (sortedLeases[start] as Lease).metadata.namespace !== NODE_LEASE_NAMESPACE) start++;
    while (end > start && (sortedLeases[end - 1] as Lease).metadata.namespace !== NODE_LEASE_NAMESPACE) end--;
    this.#next = start;
    this.#end = end;
  }

  /** The cached lease of node `name`; `last` is the object seen for it last pass (the fast path). */
  leaseOf(name: string, last: Lease | undefined): Lease | undefined {
    const leases = this.#leases;
    let j = this.#next;
    if (j >= this.#end) return undefined;
    const head = leases[j] as Lease;
    if (head === last) {
      this.#next = j + 1;
      return head;
    }
    while (j < this.#end && (leases[j] as Lease).metadata.name < name) j++;
    this.#next = j;
    const found = leases[j];
    if (j >= this.#end || found === undefined || found.metadata.name !== name) return undefined;
    this.#next = j + 1;
    return found;
  }
}
