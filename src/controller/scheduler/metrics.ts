import { Counter, Gauge, Registry } from 'prom-client';

const PREFIX = 'shepherd_scheduler_';

/**
 * The scheduler's Prometheus metrics (kube-scheduler's `schedule_attempts_total` and `pending_pods`, prefixed).
 * Built once per process on the caller's registry (a leader's every term reuses them), never on the global one.
 */
export class SchedulerMetrics {
  readonly registry: Registry;
  readonly attempts: Counter<'result'>;
  readonly pending: Gauge<'queue'>;
  readonly bindsInFlight: Gauge;

  constructor(registry?: Registry) {
    this.registry = registry ?? new Registry();
    const registers = [this.registry];
    this.attempts = new Counter({
      name: `${PREFIX}schedule_attempts_total`,
      help: 'Scheduling attempts by result: scheduled (binding accepted), unschedulable (no node fits), error.',
      labelNames: ['result'],
      registers,
    });
    this.pending = new Gauge({
      name: `${PREFIX}pending_pods`,
      help: 'Pending pods by queue: active (waiting for a try), backoff (waiting out a backoff), unschedulable (waiting for a node change).',
      labelNames: ['queue'],
      registers,
    });
    this.bindsInFlight = new Gauge({
      name: `${PREFIX}binds_in_flight`,
      help: 'Bindings sent and not yet answered.',
      registers,
    });
  }
}
