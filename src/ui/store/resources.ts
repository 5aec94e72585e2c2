import type { Deployment } from '../../core/deployment.js';
import type { Event } from '../../core/event.js';
import type { Lease } from '../../core/lease.js';
import type { Node } from '../../core/node.js';
import type { Pod } from '../../core/pod.js';
import type { Verdict } from '../../core/verdict.js';
import type { Zone } from '../../core/zone.js';
import type { ResourceDescriptor } from './list-watch-store.js';
import type { StoreScope } from './stores.js';

const byName = (o: { metadata: { name: string } }): string => o.metadata.name;
/** `namespace/name`: names repeat across namespaces. */
const byNamespacedName = (o: { metadata: { name: string; namespace?: string } }): string =>
  `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/**
 * Everything the dashboard lists and watches, by the name views ask for. A new kind is one entry here and a view
 * that reads `stores.get(<name>)`; the store code does not change.
 */
export const RESOURCES = {
  nodes: { title: 'nodes', path: '/api/v1/nodes', keyOf: byName } satisfies ResourceDescriptor<Node>,
  nodeLeases: { title: 'node leases', path: '/api/v1/leases', keyOf: byName } satisfies ResourceDescriptor<Lease>,
  /** Leader election leases (docs/api.md: the controller leader holds one in shepherd-system). */
  systemLeases: {
    title: 'leader leases',
    path: '/api/v1/namespaces/shepherd-system/leases',
    keyOf: byName,
  } satisfies ResourceDescriptor<Lease>,
  events: { title: 'events', path: '/api/v1/events', keyOf: byName } satisfies ResourceDescriptor<Event>,
  zones: { title: 'zones', path: '/api/v1/zones', keyOf: byName } satisfies ResourceDescriptor<Zone>,
  pods: { title: 'pods', path: '/api/v1/pods', keyOf: byNamespacedName } satisfies ResourceDescriptor<Pod>,
  deployments: {
    title: 'deployments',
    path: '/apis/apps/v1/deployments',
    keyOf: byNamespacedName,
  } satisfies ResourceDescriptor<Deployment>,
  /** Always scoped to one node (`fieldScope('node', …)`): every node's 50 newest would be too many for a page. */
  verdicts: { title: 'verdicts', path: '/api/v1/verdicts', keyOf: byName } satisfies ResourceDescriptor<Verdict>,
};

export type ResourceName = keyof typeof RESOURCES;

/** The object type each store holds. */
export interface ResourceTypes {
  nodes: Node;
  nodeLeases: Lease;
  systemLeases: Lease;
  events: Event;
  zones: Zone;
  pods: Pod;
  deployments: Deployment;
  verdicts: Verdict;
}

/** A field selector as a store scope (docs/api.md#selectors). */
export function fieldScope(field: string, value: string, title: string): StoreScope {
  return { query: `fieldSelector=${encodeURIComponent(`${field}=${value}`)}`, title };
}

/** The Lease the elected node lifecycle controller holds (docs/api.md#leadership). */
export const LEADER_LEASE_NAME = 'shepherd-node-lifecycle-controller';
