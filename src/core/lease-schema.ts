import { z } from 'zod';
import { MAX_NAME_CHARS } from './limits.js';
import { ObjectMetaSchema, TimeSchema } from './meta.js';

/** The zod schemas of Lease (docs/api.md); the registry validates client writes with them. */
export const LeaseSpecSchema = z.strictObject({
  holderIdentity: z.string().min(1).max(MAX_NAME_CHARS),
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
