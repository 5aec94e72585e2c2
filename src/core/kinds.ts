import type { Deployment } from './deployment.js';
import type { Event } from './event.js';
import type { Lease } from './lease.js';
import type { Node } from './node.js';
import { objectKey } from './object-key.js';
import type { Pod } from './pod.js';
import type { Verdict } from './verdict.js';
import type { Zone } from './zone.js';

/** The resources the API serves; also the store's kinds. */
export const RESOURCES = ['nodes', 'leases', 'events', 'zones', 'pods', 'deployments', 'verdicts'] as const;
export type Resource = (typeof RESOURCES)[number];

export interface ResourceTypes {
  nodes: Node;
  leases: Lease;
  events: Event;
  zones: Zone;
  pods: Pod;
  deployments: Deployment;
  verdicts: Verdict;
}
export type AnyObject = ResourceTypes[Resource];

export interface KindInfo {
  kind: string;
  listKind: string;
  apiVersion: string;
  singular: string;
  /** Objects live in a namespace, and their keys are `namespace/name` (core/object-key.ts). */
  namespaced: boolean;
}

export const KIND_OF: Record<Resource, KindInfo> = {
  nodes: { kind: 'Node', listKind: 'NodeList', apiVersion: 'v1', singular: 'node', namespaced: false },
  leases: { kind: 'Lease', listKind: 'LeaseList', apiVersion: 'coordination/v1', singular: 'lease', namespaced: true },
  events: { kind: 'Event', listKind: 'EventList', apiVersion: 'v1', singular: 'event', namespaced: false },
  zones: { kind: 'Zone', listKind: 'ZoneList', apiVersion: 'v1', singular: 'zone', namespaced: false },
  pods: { kind: 'Pod', listKind: 'PodList', apiVersion: 'v1', singular: 'pod', namespaced: true },
  deployments: {
    kind: 'Deployment',
    listKind: 'DeploymentList',
    apiVersion: 'apps/v1',
    singular: 'deployment',
    namespaced: true,
  },
  verdicts: {
    kind: 'Verdict',
    listKind: 'VerdictList',
    apiVersion: 'shepherd.io/v1',
    singular: 'verdict',
    namespaced: false,
  },
};

export function isResource(s: string): s is Resource {
  return (RESOURCES as readonly string[]).includes(s);
}

/**
 * The store and cache key of an object: `namespace/name` for a namespaced kind, the name otherwise (a namespace
 * set on an object of a cluster-scoped kind is not part of its key).
 */
export function keyOf(resource: Resource, obj: { metadata: { name: string; namespace?: string } }): string {
  const { name, namespace } = obj.metadata;
  return KIND_OF[resource].namespaced ? objectKey({ namespace: namespace ?? '', name }) : name;
}
