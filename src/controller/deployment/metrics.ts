import { Counter, Registry } from 'prom-client';

const PREFIX = 'shepherd_deployment_controller_';

/** The deployment controller's Prometheus metrics, built once per process on the caller's registry. */
export class DeploymentMetrics {
  readonly registry: Registry;
  readonly syncs: Counter<'result'>;
  readonly podsCreated: Counter;
  readonly podsDeleted: Counter;

  constructor(registry?: Registry) {
    this.registry = registry ?? new Registry();
    const registers = [this.registry];
    this.syncs = new Counter({
      name: `${PREFIX}syncs_total`,
      help: 'Deployment syncs by result (success, error: retried with backoff).',
      labelNames: ['result'],
      registers,
    });
    this.podsCreated = new Counter({
      name: `${PREFIX}pods_created_total`,
      help: 'Pods created for Deployments.',
      registers,
    });
    this.podsDeleted = new Counter({
      name: `${PREFIX}pods_deleted_total`,
      help: 'Pods deleted by scale-down, rollouts and Recreate (graceful DELETEs).',
      registers,
    });
  }
}
