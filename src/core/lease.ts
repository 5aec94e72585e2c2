import { z } from 'zod';
import { ObjectMetaSchema, TimeSchema, type ObjectMeta } from './meta.js';

export const NODE_LEASE_NAMESPACE = 'node-lease';
export const SYSTEM_NAMESPACE = 'shepherd-system';
export const LEASE_NAMESPACES = [NODE_LEASE_NAMESPACE, SYSTEM_NAMESPACE] as const;

export const LeaseSpecSchema = z.strictObject({
  holderIdentity: z.string().min(1).max(253),
  leaseDurationSeconds: z.number().int().min(1).max(86_400),
  acquireTime: TimeSchema.optional(),
  renewTime: TimeSchema,
  leaseTransitions: z.number().int().nonnegative().optional(),
});
export type LeaseSpec = z.infer<typeof LeaseSpecSchema>;

export const LeaseInputSchema = z.strictObject({
  apiVersion: z.literal('coordination/v1').optional(),
  kind: z.literal('Lease').optional(),
  metadata: ObjectMetaSchema,
  spec: LeaseSpecSchema,
});
export type LeaseInput = z.infer<typeof LeaseInputSchema>;

export interface Lease {
  apiVersion: 'coordination/v1';
  kind: 'Lease';
  metadata: ObjectMeta & { namespace: string };
  spec: LeaseSpec;
}

/** Store key of a lease: `namespace/name`. */
export function leaseKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
