import type { LeaseInput, LeaseSpec } from './lease-schema.js';
import type { ObjectMeta } from './meta.js';

// Types only (erased at run time): clients such as the agent use Lease without loading zod.
export type { LeaseInput, LeaseSpec };

export const NODE_LEASE_NAMESPACE = 'node-lease';
export const SYSTEM_NAMESPACE = 'shepherd-system';
export const LEASE_NAMESPACES = [NODE_LEASE_NAMESPACE, SYSTEM_NAMESPACE] as const;

export interface Lease {
  apiVersion: 'coordination/v1';
  kind: 'Lease';
  metadata: ObjectMeta & { namespace: string };
  spec: LeaseSpec;
}
