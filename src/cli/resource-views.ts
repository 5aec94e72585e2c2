import type { ApiClient, ResourceClient } from '../client/api-client.js';
import type { Event } from '../core/event.js';
import { isReason } from '../core/errors.js';
import type { AnyObject, Resource } from '../core/kinds.js';
import { NODE_LEASE_NAMESPACE, SYSTEM_NAMESPACE, type Lease } from '../core/lease.js';
import type { Node } from '../core/node.js';
import { DEFAULT_NAMESPACE } from '../core/pod.js';
import type { Zone } from '../core/zone.js';
import type { Deployment } from '../core/deployment.js';
import type { Pod } from '../core/pod.js';
import { deploymentHeaders, deploymentRow } from './deployment-table.js';
import { podHeaders, podRow } from './pod-table.js';
import { age } from './age.js';
import type { CliDeps } from './cli-context.js';
import { EVENT_HEADERS, eventRow, sortEventsNewestFirst } from './event-table.js';
import { LeaseLookup } from './lease-lookup.js';
import { LEASE_HEADERS, LEASE_WIDE_HEADERS, leaseRow } from './lease-table.js';
import { NODE_HEADERS, NODE_WIDE_HEADERS, nodeRow } from './node-table.js';
import type { Cell } from './table-printer.js';
import { ZONE_HEADERS, ZONE_WIDE_HEADERS, zoneFooter, zoneRow } from './zone-table.js';

/** The lease a leader-elected node lifecycle controller holds (docs/api.md "Leadership"). */
export const CONTROLLER_LEADER_LEASE = 'shepherd-node-lifecycle-controller';

/** How one resource is shown as a table: columns, order, and the related objects a row needs. */
export interface ResourceView {
  headers: string[];
  /**
   * Rows come in the server's order (by name) and nothing is printed under them, so a list is printed a page at a
   * time as it arrives; otherwise (a sort over the whole list, a footer) it is gathered first.
   */
  paged: boolean;
  /** Under -w: per column, the widest value a later change may bring (see TablePrinter's reserve). */
  watchReserve: Array<string | undefined>;
  sort(items: AnyObject[]): AnyObject[];
  /** Rows for a listed batch; successive batches of a paged view come in name order (nodes read their leases alongside). */
  rows(items: AnyObject[]): Promise<Cell[][]>;
  /** The row for one watched change (nodes re-read that node's lease so LAST HEARTBEAT is current). */
  rowFor(obj: AnyObject, deleted: boolean): Promise<Cell[]>;
  /** Lines printed under the table (zones: leader, master disruption, circuit breaker). */
  footer(items: AnyObject[]): Promise<string[]>;
}

/**
 * The client of one resource. Pods and deployments: of `namespace` (default `default`), or with `allNamespaces` of
 * every namespace (lists and watches only); leases: of `namespace` (default `node-lease`).
 */
export function resourceClient(
  client: ApiClient,
  resource: Resource,
  namespace?: string,
  allNamespaces = false,
): ResourceClient<AnyObject> {
  switch (resource) {
    case 'nodes':
      return client.nodes as ResourceClient<AnyObject>;
    case 'leases':
      return client.leases(namespace) as ResourceClient<AnyObject>;
    case 'events':
      return client.events as ResourceClient<AnyObject>;
    case 'zones':
      return client.zones as ResourceClient<AnyObject>;
    case 'pods':
      return client.pods(allNamespaces ? undefined : (namespace ?? DEFAULT_NAMESPACE)) as ResourceClient<AnyObject>;
    case 'deployments':
      return client.deployments(
        allNamespaces ? undefined : (namespace ?? DEFAULT_NAMESPACE),
      ) as ResourceClient<AnyObject>;
    case 'verdicts':
      return client.verdicts as ResourceClient<AnyObject>;
  }
}

/** GET that answers undefined for 404: a node without a lease, a cluster without a leader, are normal. */
export async function getOptional<T>(
  rc: ResourceClient<T>,
  name: string,
  signal?: AbortSignal,
): Promise<T | undefined> {
  try {
    return await rc.get(name, signal ? { signal } : {});
  } catch (err) {
    if (isReason(err, 'NotFound')) return undefined;
    throw err;
  }
}

// Code-unit order, as the server lists (names are ASCII): a page sorted alone sorts as the whole list does.
const byName = (items: AnyObject[]): AnyObject[] =>
  [...items].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));

/** `allNamespaces`: pods and deployments of every namespace (`-A`), with a NAMESPACE column. */
// Namespaced objects in the store's key order, `namespace/name`.
const byKey = (items: AnyObject[]): AnyObject[] =>
  [...items].sort((a, b) => {
    const ka = `${a.metadata.namespace ?? ''}/${a.metadata.name}`;
    const kb = `${b.metadata.namespace ?? ''}/${b.metadata.name}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });

export function viewFor(resource: Resource, deps: CliDeps, wide: boolean, allNamespaces = false): ResourceView {
  const now = deps.now();
  const plain = (row: (o: AnyObject) => Cell[], headers: string[], sort?: ResourceView['sort']): ResourceView => ({
    headers,
    paged: sort === undefined,
    watchReserve: [],
    sort: sort ?? byName,
    rows: async (items) => items.map(row),
    rowFor: async (o) => row(o),
    footer: async () => [],
  });
  switch (resource) {
    case 'nodes':
      return nodeView(deps, wide);
    case 'leases':
      return plain((o) => leaseRow(o as Lease, now, wide), wide ? LEASE_WIDE_HEADERS : LEASE_HEADERS);
    case 'events':
      return plain(
        (o) => eventRow(o as Event, now, deps.colour),
        EVENT_HEADERS,
        (items) => sortEventsNewestFirst(items as Event[]),
      );
    case 'zones':
      return {
        ...plain((o) => zoneRow(o as Zone, now, wide), wide ? ZONE_WIDE_HEADERS : ZONE_HEADERS),
        paged: false,
        footer: async (items) => {
          const leader = await getOptional(deps.client.leases(SYSTEM_NAMESPACE), CONTROLLER_LEADER_LEASE, deps.signal);
          return zoneFooter(items as Zone[], leader);
        },
      };
    case 'pods':
      // All namespaces come in the server's key order (namespace/name), so a page sorted alone stays in order.
      return {
        ...plain((o) => podRow(o as Pod, now, wide, allNamespaces), podHeaders(wide, allNamespaces), byKey),
        paged: true,
        watchReserve: podHeaders(wide, allNamespaces).map((h) => (h === 'STATUS' ? 'CrashLoopBackOff' : undefined)),
      };
    case 'deployments':
      return {
        ...plain(
          (o) => deploymentRow(o as Deployment, now, wide, allNamespaces),
          deploymentHeaders(wide, allNamespaces),
          byKey,
        ),
        paged: true,
      };
    case 'verdicts':
      // A minimal table until verdicts get their own columns (sheepctl verdicts prints them in full).
      return plain((o) => [o.metadata.name, age(o.metadata.creationTimestamp, now)], ['NAME', 'AGE']);
  }
}

function nodeView(deps: CliDeps, wide: boolean): ResourceView {
  const leases = deps.client.leases(NODE_LEASE_NAMESPACE);
  const lookup = new LeaseLookup(leases, deps.signal);
  const row = (n: AnyObject, lease: Lease | undefined): Cell[] =>
    nodeRow(n as Node, lease, deps.now(), deps.colour, wide);
  return {
    headers: wide ? NODE_WIDE_HEADERS : NODE_HEADERS,
    paged: true,
    // A node that is cordoned and goes NotReady has the widest STATUS; a lost lease shows <unknown>.
    watchReserve: (wide ? NODE_WIDE_HEADERS : NODE_HEADERS).map((h) =>
      h === 'STATUS' ? 'NotReady,SchedulingDisabled' : h === 'LAST HEARTBEAT' ? '<unknown>' : undefined,
    ),
    sort: byName,
    rows: async (items) => {
      if (items.length === 0) return [];
      // One list read alongside instead of a GET per node; a single node reads its own lease.
      if (items.length === 1) {
        const n = items[0] as AnyObject;
        return [row(n, await getOptional(leases, n.metadata.name, deps.signal))];
      }
      const byNode = await lookup.forNames(items.map((n) => n.metadata.name));
      return items.map((n) => row(n, byNode.get(n.metadata.name)));
    },
    rowFor: async (n, deleted) => row(n, deleted ? undefined : await getOptional(leases, n.metadata.name, deps.signal)),
    footer: async () => [],
  };
}
