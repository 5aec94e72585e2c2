import type { Event } from './event.js';
import type { Lease } from './lease.js';
import type { Node } from './node.js';
import type { Zone } from './zone.js';

/** The resources the API serves; also the store's kinds. */
export const RESOURCES = ['nodes', 'leases', 'events', 'zones'] as const;
export type Resource = (typeof RESOURCES)[number];

export interface ResourceTypes {
  nodes: Node;
  leases: Lease;
  events: Event;
  zones: Zone;
}
export type AnyObject = Node | Lease | Event | Zone;

export const KIND_OF: Record<Resource, { kind: string; listKind: string; apiVersion: string; singular: string }> = {
  nodes: { kind: 'Node', listKind: 'NodeList', apiVersion: 'v1', singular: 'node' },
  leases: { kind: 'Lease', listKind: 'LeaseList', apiVersion: 'coordination/v1', singular: 'lease' },
  events: { kind: 'Event', listKind: 'EventList', apiVersion: 'v1', singular: 'event' },
  zones: { kind: 'Zone', listKind: 'ZoneList', apiVersion: 'v1', singular: 'zone' },
};

export function isResource(s: string): s is Resource {
  return (RESOURCES as readonly string[]).includes(s);
}

/** The store key of an object: `namespace/name` for leases, the name otherwise. */
export function keyOf(resource: Resource, obj: { metadata: { name: string; namespace?: string } }): string {
  return resource === 'leases' ? `${obj.metadata.namespace ?? ''}/${obj.metadata.name}` : obj.metadata.name;
}
