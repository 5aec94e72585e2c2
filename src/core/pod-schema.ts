import { z } from 'zod';
import {
  MAX_KIND_CHARS,
  MAX_LABEL_VALUE_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
  MAX_QUALIFIED_NAME_CHARS,
  MAX_REASON_CHARS,
} from './limits.js';
import { LabelsSchema, TimeSchema, WorkloadMetaSchema } from './meta.js';
import { ConditionStatusSchema, TaintEffectSchema } from './node-schema.js';

/** The zod schemas of Pod (docs/api.md#pod); the registry validates client writes with them. */

/** A DNS-1123 label (container names): what Kubernetes requires for names that become parts of other names. */
const LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const ContainerNameSchema = z
  .string()
  .max(63)
  .regex(LABEL_RE, "must be a DNS-1123 label: lowercase alphanumerics and '-', starting and ending alphanumeric");
const EnvNameSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[-._a-zA-Z][-._a-zA-Z0-9]*$/, "must consist of alphanumerics, '-', '.' or '_', not starting with a digit");

export const TolerationOperatorSchema = z.enum(['Equal', 'Exists']);

export const TolerationSchema = z
  .strictObject({
    key: z.string().max(MAX_QUALIFIED_NAME_CHARS).optional(),
    operator: TolerationOperatorSchema.optional(),
    value: z.string().max(MAX_LABEL_VALUE_CHARS).optional(),
    effect: TaintEffectSchema.optional(),
    /** NoExecute only: how long the pod stays on a node after the taint is added; absent means forever. */
    tolerationSeconds: z.number().int().optional(),
  })
  .superRefine((t, ctx) => {
    if (t.operator === 'Exists' && t.value !== undefined && t.value !== '') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be empty when operator is Exists' });
    }
    if ((t.key === undefined || t.key === '') && t.operator !== 'Exists') {
      ctx.addIssue({ code: 'custom', path: ['operator'], message: 'must be Exists when key is empty' });
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      ctx.addIssue({
        code: 'custom',
        path: ['tolerationSeconds'],
        message: 'may only be set when effect is NoExecute',
      });
    }
  });
export type Toleration = z.infer<typeof TolerationSchema>;

export const EnvVarSchema = z.strictObject({
  name: EnvNameSchema,
  value: z
    .string()
    .max(32 * 1024)
    .optional(),
});
export type EnvVar = z.infer<typeof EnvVarSchema>;

const ArgvSchema = z.array(z.string().max(4096)).max(256);

export const ContainerSchema = z.strictObject({
  name: ContainerNameSchema,
  image: z.string().max(1024).optional(),
  /** With a command, the agent runs the container as a child process (only with --allow-process-pods). */
  command: ArgvSchema.optional(),
  args: ArgvSchema.optional(),
  env: z.array(EnvVarSchema).max(128).optional(),
});
export type Container = z.infer<typeof ContainerSchema>;

export const RestartPolicySchema = z.enum(['Always', 'OnFailure', 'Never']);
export type RestartPolicy = z.infer<typeof RestartPolicySchema>;

export const PodSpecSchema = z
  .strictObject({
    nodeName: z.string().max(MAX_NAME_CHARS).optional(),
    nodeSelector: LabelsSchema.optional(),
    tolerations: z.array(TolerationSchema).max(64).optional(),
    containers: z.array(ContainerSchema).min(1).max(16),
    restartPolicy: RestartPolicySchema.optional(),
    terminationGracePeriodSeconds: z.number().int().min(0).max(3600).optional(),
  })
  .superRefine((spec, ctx) => {
    const seen = new Set<string>();
    spec.containers.forEach((c, i) => {
      if (seen.has(c.name))
        ctx.addIssue({ code: 'custom', path: ['containers', i, 'name'], message: 'duplicate name' });
      seen.add(c.name);
    });
  });
export type PodSpec = z.infer<typeof PodSpecSchema>;

export const PodPhaseSchema = z.enum(['Pending', 'Running', 'Succeeded', 'Failed']);
export type PodPhase = z.infer<typeof PodPhaseSchema>;

export const PodConditionSchema = z.strictObject({
  type: z.string().min(1).max(MAX_KIND_CHARS),
  status: ConditionStatusSchema,
  reason: z.string().max(MAX_REASON_CHARS).optional(),
  message: z.string().max(MAX_MESSAGE_CHARS).optional(),
  lastTransitionTime: TimeSchema.optional(),
});
export type PodCondition = z.infer<typeof PodConditionSchema>;

const ContainerStateSchema = z.strictObject({
  waiting: z
    .strictObject({
      reason: z.string().max(MAX_REASON_CHARS).optional(),
      message: z.string().max(MAX_MESSAGE_CHARS).optional(),
    })
    .optional(),
  running: z.strictObject({ startedAt: TimeSchema.optional() }).optional(),
  terminated: z
    .strictObject({
      exitCode: z.number().int(),
      signal: z.number().int().optional(),
      reason: z.string().max(MAX_REASON_CHARS).optional(),
      message: z.string().max(MAX_MESSAGE_CHARS).optional(),
      startedAt: TimeSchema.optional(),
      finishedAt: TimeSchema.optional(),
    })
    .optional(),
});
export type ContainerState = z.infer<typeof ContainerStateSchema>;

export const ContainerStatusSchema = z.strictObject({
  name: ContainerNameSchema,
  ready: z.boolean(),
  restartCount: z.number().int().nonnegative(),
  state: ContainerStateSchema,
  lastState: ContainerStateSchema.optional(),
});
export type ContainerStatus = z.infer<typeof ContainerStatusSchema>;

export const PodStatusSchema = z.strictObject({
  phase: PodPhaseSchema,
  reason: z.string().max(MAX_REASON_CHARS).optional(),
  message: z.string().max(MAX_MESSAGE_CHARS).optional(),
  hostIP: z.string().max(MAX_NAME_CHARS).optional(),
  startTime: TimeSchema.optional(),
  conditions: z.array(PodConditionSchema).max(16).optional(),
  containerStatuses: z.array(ContainerStatusSchema).max(16).optional(),
});
export type PodStatus = z.infer<typeof PodStatusSchema>;

export const PodInputSchema = z.strictObject({
  apiVersion: z.literal('v1').optional(),
  kind: z.literal('Pod').optional(),
  metadata: WorkloadMetaSchema,
  spec: PodSpecSchema,
  status: PodStatusSchema.optional(),
});
export type PodInput = z.infer<typeof PodInputSchema>;

/** `POST …/pods/{name}/binding` (docs/api.md#binding). */
export const BindingSchema = z.strictObject({
  apiVersion: z.literal('v1').optional(),
  kind: z.literal('Binding').optional(),
  metadata: z.strictObject({
    name: z.string().max(MAX_NAME_CHARS),
    namespace: z.string().max(MAX_KIND_CHARS).optional(),
  }),
  target: z.strictObject({ kind: z.literal('Node').optional(), name: z.string().min(1).max(MAX_NAME_CHARS) }),
});
export type BindingInput = z.infer<typeof BindingSchema>;
