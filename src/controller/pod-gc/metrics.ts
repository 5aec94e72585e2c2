import { Counter, Registry } from 'prom-client';

/** The pod collector's Prometheus metrics (upstream's force_delete_pods_total, for orphaned pods), built once per process. */
export class PodGcMetrics {
  readonly registry: Registry;
  readonly orphansDeleted: Counter;

  constructor(registry?: Registry) {
    this.registry = registry ?? new Registry();
    this.orphansDeleted = new Counter({
      name: 'shepherd_pod_gc_orphaned_pods_deleted_total',
      help: 'Pods deleted at once because the node they are bound to no longer exists.',
      registers: [this.registry],
    });
  }
}
