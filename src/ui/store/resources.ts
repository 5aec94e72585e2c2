import type { Event } from '../../core/event.js';
import type { Lease } from '../../core/lease.js';
import type { Node } from '../../core/node.js';
import type { Zone } from '../../core/zone.js';
import type { ResourceDescriptor } from './list-watch-store.js';

const byName = (o: { metadata: { name: string } }): string => o.metadata.name;

/**
 * Everything the dashboard lists and watches, by the name views ask for. A new kind (pods, deployments,
 * verdicts) is one entry here and a view that reads `stores.get(<name>)`; the store code does not change.
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
};

export type ResourceName = keyof typeof RESOURCES;

/** The object type each store holds. */
export interface ResourceTypes {
  nodes: Node;
  nodeLeases: Lease;
  systemLeases: Lease;
  events: Event;
  zones: Zone;
}

/** The Lease the elected node lifecycle controller holds (docs/api.md#leadership). */
export const LEADER_LEASE_NAME = 'shepherd-node-lifecycle-controller';
