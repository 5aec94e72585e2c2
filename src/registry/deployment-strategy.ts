import { isDeepStrictEqual } from 'node:util';
import {
  DEFAULT_MAX_SURGE,
  DEFAULT_MAX_UNAVAILABLE,
  type Deployment,
  type DeploymentSpec,
} from '../core/deployment.js';
import { withPodDefaults } from './pod-strategy.js';

/**
 * Deployment semantics as pure functions (Kubernetes' deploymentStrategy), shared by the registry and the test
 * fake. docs/api.md#deployment describes them.
 */

/** Kubernetes' SetDefaults_Deployment: replicas 1, RollingUpdate 25 %/25 %, and the pod defaults in the template. */
export function withDeploymentDefaults(spec: DeploymentSpec): DeploymentSpec {
  const type = spec.strategy?.type ?? 'RollingUpdate';
  const ru = spec.strategy?.rollingUpdate;
  const strategy =
    type === 'Recreate'
      ? { type }
      : {
          type,
          rollingUpdate: {
            maxUnavailable: ru?.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE,
            maxSurge: ru?.maxSurge ?? DEFAULT_MAX_SURGE,
          },
        };
  return {
    ...spec,
    replicas: spec.replicas ?? 1,
    strategy,
    template: { ...spec.template, spec: withPodDefaults(spec.template.spec) },
  };
}

/** metadata.generation after a write of `spec`: 1 on create, one more whenever the spec changes. */
export function nextGeneration(stored: Deployment | undefined, spec: DeploymentSpec): number {
  if (stored === undefined) return 1;
  const generation = stored.metadata.generation ?? 1;
  return isDeepStrictEqual(stored.spec, spec) ? generation : generation + 1;
}
