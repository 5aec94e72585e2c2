import { Counter, Gauge, Registry } from 'prom-client';

const PREFIX = 'shepherd_taint_eviction_';

/**
 * The taint-eviction controller's Prometheus metrics (upstream's taint_eviction_controller_pod_deletions_total,
 * prefixed, and the pending evictions), built once per process on the caller's registry.
 */
export class TaintEvictionMetrics {
  readonly registry: Registry;
  readonly podDeletions: Counter;
  readonly pending: Gauge;
  readonly rebuildBacklog: Gauge;

  constructor(registry?: Registry) {
    this.registry = registry ?? new Registry();
    const registers = [this.registry];
    this.podDeletions = new Counter({
      name: `${PREFIX}pod_deletions_total`,
      help: 'Pods deleted because of a NoExecute taint they do not tolerate (or no longer tolerate).',
      registers,
    });
    this.pending = new Gauge({
      name: `${PREFIX}pending_evictions`,
      help: 'Pods whose deletion is scheduled for when their tolerationSeconds run out, or waiting in the rebuild backlog.',
      registers,
    });
    this.rebuildBacklog = new Gauge({
      name: `${PREFIX}rebuild_backlog`,
      help: 'Evictions found overdue when the controller started, waiting to be released at --taint-eviction-rebuild-rate.',
      registers,
    });
  }
}
