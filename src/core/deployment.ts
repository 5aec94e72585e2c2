import type { ObjectMeta } from './meta.js';
import type {
  DeploymentInput,
  DeploymentSpec,
  DeploymentStatus,
  DeploymentStrategy,
  IntOrPercent,
  PodTemplate,
} from './deployment-schema.js';

// Types only (erased at run time): clients use Deployment without loading zod.
export type { DeploymentInput, DeploymentSpec, DeploymentStatus, DeploymentStrategy, IntOrPercent, PodTemplate };

/** The label the deployment controller puts on its pods: a hash of the template they were made from. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** Kubernetes' RollingUpdate defaults. */
export const DEFAULT_MAX_SURGE = '25%';
export const DEFAULT_MAX_UNAVAILABLE = '25%';

export interface Deployment {
  apiVersion: 'apps/v1';
  kind: 'Deployment';
  metadata: ObjectMeta & { namespace: string };
  spec: DeploymentSpec;
  status: DeploymentStatus;
}

/**
 * Kubernetes' `intstr.GetScaledValueFromIntOrPercent`: a number as is, a percentage of `total` rounded up (surge)
 * or down (unavailable).
 */
export function scaledValue(
  v: IntOrPercent | undefined,
  fallback: IntOrPercent,
  total: number,
  roundUp: boolean,
): number {
  const value = v ?? fallback;
  if (typeof value === 'number') return value;
  const scaled = (Number(value.slice(0, -1)) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}
