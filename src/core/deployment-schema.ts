import { z } from 'zod';
import { MAX_KIND_CHARS, MAX_MESSAGE_CHARS, MAX_REASON_CHARS } from './limits.js';
import { AnnotationsSchema, LabelsSchema, TimeSchema, WorkloadMetaSchema } from './meta.js';
import { PodSpecSchema } from './pod-schema.js';

/** The zod schemas of Deployment (docs/api.md#deployment); the registry validates client writes with them. */

/** An absolute number of pods or a percentage of the replicas (`"25%"`), as Kubernetes' IntOrString. */
export const IntOrPercentSchema = z.union([
  z.number().int().nonnegative(),
  z.string().regex(/^(100|[1-9]?[0-9])%$/, 'must be a whole number or a percentage from 0% to 100%'),
]);
export type IntOrPercent = z.infer<typeof IntOrPercentSchema>;

export const DeploymentStrategySchema = z.strictObject({
  type: z.enum(['RollingUpdate', 'Recreate']).optional(),
  rollingUpdate: z
    .strictObject({ maxUnavailable: IntOrPercentSchema.optional(), maxSurge: IntOrPercentSchema.optional() })
    .optional(),
});
export type DeploymentStrategy = z.infer<typeof DeploymentStrategySchema>;

export const PodTemplateSchema = z.strictObject({
  metadata: z.strictObject({ labels: LabelsSchema.optional(), annotations: AnnotationsSchema.optional() }).optional(),
  spec: PodSpecSchema,
});
export type PodTemplate = z.infer<typeof PodTemplateSchema>;

export const DeploymentSpecSchema = z
  .strictObject({
    replicas: z.number().int().min(0).max(100_000).optional(),
    selector: z.strictObject({ matchLabels: LabelsSchema }),
    template: PodTemplateSchema,
    strategy: DeploymentStrategySchema.optional(),
    minReadySeconds: z.number().int().min(0).max(3600).optional(),
  })
  .superRefine((spec, ctx) => {
    const selector = spec.selector.matchLabels;
    if (Object.keys(selector).length === 0) {
      ctx.addIssue({ code: 'custom', path: ['selector', 'matchLabels'], message: 'must not be empty' });
    }
    const labels = spec.template.metadata?.labels ?? {};
    for (const [k, v] of Object.entries(selector)) {
      if (labels[k] !== v) {
        ctx.addIssue({
          code: 'custom',
          path: ['template', 'metadata', 'labels'],
          message: `selector does not match template labels: ${k}=${v} is missing`,
        });
      }
    }
    const ru = spec.strategy?.rollingUpdate;
    if (spec.strategy?.type === 'Recreate' && ru !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['strategy', 'rollingUpdate'],
        message: 'may not be set when type is Recreate',
      });
    }
    if (ru !== undefined && isZero(ru.maxSurge) && isZero(ru.maxUnavailable)) {
      ctx.addIssue({
        code: 'custom',
        path: ['strategy', 'rollingUpdate', 'maxUnavailable'],
        message: 'may not be 0 when maxSurge is 0',
      });
    }
  });
export type DeploymentSpec = z.infer<typeof DeploymentSpecSchema>;

function isZero(v: IntOrPercent | undefined): boolean {
  return v === 0 || v === '0%';
}

export const DeploymentConditionSchema = z.strictObject({
  type: z.string().min(1).max(MAX_KIND_CHARS),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().max(MAX_REASON_CHARS).optional(),
  message: z.string().max(MAX_MESSAGE_CHARS).optional(),
  lastUpdateTime: TimeSchema.optional(),
  lastTransitionTime: TimeSchema.optional(),
});

export const DeploymentStatusSchema = z.strictObject({
  observedGeneration: z.number().int().nonnegative().optional(),
  replicas: z.number().int().nonnegative().optional(),
  updatedReplicas: z.number().int().nonnegative().optional(),
  readyReplicas: z.number().int().nonnegative().optional(),
  availableReplicas: z.number().int().nonnegative().optional(),
  unavailableReplicas: z.number().int().nonnegative().optional(),
  conditions: z.array(DeploymentConditionSchema).max(8).optional(),
});
export type DeploymentStatus = z.infer<typeof DeploymentStatusSchema>;

export const DeploymentInputSchema = z.strictObject({
  apiVersion: z.literal('apps/v1').optional(),
  kind: z.literal('Deployment').optional(),
  metadata: WorkloadMetaSchema,
  spec: DeploymentSpecSchema,
  status: DeploymentStatusSchema.optional(),
});
export type DeploymentInput = z.infer<typeof DeploymentInputSchema>;
