import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EventLoopDelayGauges } from './event-loop-delay.js';

export interface ApiMetricsOptions {
  /** Process metrics (CPU, memory, event loop lag and shepherd_event_loop_delay_*); off in tests that build many servers. */
  defaultMetrics?: boolean;
}

/**
 * One prom-client Registry per server instance: prom-client's global registry would throw "metric already
 * registered" as soon as a process (a test run) builds a second server.
 */
export class ApiMetrics {
  readonly register = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly commitDuration: Histogram;
  readonly commitBatchSize: Histogram;
  readonly watchers: Gauge<'resource'>;
  readonly watchesTooSlow: Counter;
  readonly revision: Gauge;
  /** Present with the process metrics. */
  readonly loopDelay: EventLoopDelayGauges | undefined;

  constructor(options: ApiMetricsOptions = {}) {
    const registers = [this.register];
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.register });
    this.loopDelay = options.defaultMetrics === false ? undefined : new EventLoopDelayGauges(this.register);
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Duration of HTTP requests by method, route and status code (WATCH: the whole stream).',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.commitDuration = new Histogram({
      name: 'shepherd_store_commit_duration_seconds',
      help: 'Duration of one store commit (one transaction, possibly a batch of writes).',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.commitBatchSize = new Histogram({
      name: 'shepherd_store_commit_batch_size',
      help: 'Number of writes committed together in one store transaction.',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
      registers,
    });
    this.watchers = new Gauge({
      name: 'shepherd_watchers',
      help: 'Open watch streams by resource.',
      labelNames: ['resource'],
      registers,
    });
    this.watchesTooSlow = new Counter({
      name: 'shepherd_watches_too_slow_total',
      help: 'Watch streams ended because their client fell further behind than --max-watch-unsent-bytes.',
      registers,
    });
    this.revision = new Gauge({
      name: 'shepherd_store_revision',
      help: 'The newest revision the store has committed.',
      registers,
    });
  }

  /** Wire this as the store's `onCommit(batchSize, durationMs)`; an arrow so it can be passed unbound. */
  readonly recordCommit = (batchSize: number, durationMs: number): void => {
    this.commitBatchSize.observe(batchSize);
    this.commitDuration.observe(durationMs / 1000);
  };
}
