import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Registry } from 'prom-client';
import { registerCollectedGauge } from './collected-gauge.js';

export interface LoopDelay {
  /** Seconds. */
  p50: number;
  p99: number;
  max: number;
}

/**
 * The event loop's scheduling delay (how late a timer ran: synchronous work holding the loop), as three gauges
 * over the window since the previous scrape of /metrics: `shepherd_event_loop_delay_{p50,p99,max}_seconds`.
 * A window, not a running total, so one long stall is visible in the scrape that follows it and a benchmark reads
 * its own window by scraping at its start and end (bench/fleet-capacity.ts). Sampled every `resolutionMs` by
 * Node's histogram (https://nodejs.org/api/perf_hooks.html#perf_hooksmonitoreventloopdelayoptions).
 */
export class EventLoopDelayGauges {
  readonly #histogram: IntervalHistogram;
  readonly #resolutionNs: number;
  #last: LoopDelay = { p50: 0, p99: 0, max: 0 };

  constructor(registry: Registry, resolutionMs = 10) {
    this.#histogram = monitorEventLoopDelay({ resolution: resolutionMs });
    this.#resolutionNs = resolutionMs * 1e6;
    this.#histogram.enable();
    // prom-client collects gauges in registration order: p50 comes first, so it closes the window for all three.
    registerCollectedGauge(
      registry,
      'shepherd_event_loop_delay_p50_seconds',
      'Median event-loop delay since the previous scrape.',
      () => this.take().p50,
    );
    registerCollectedGauge(
      registry,
      'shepherd_event_loop_delay_p99_seconds',
      '99th percentile event-loop delay since the previous scrape.',
      () => this.#last.p99,
    );
    registerCollectedGauge(
      registry,
      'shepherd_event_loop_delay_max_seconds',
      'Longest event-loop delay since the previous scrape.',
      () => this.#last.max,
    );
  }

  /** The delays since the previous take (or start), in seconds; starts a new window. */
  take(): LoopDelay {
    const h = this.#histogram;
    // The histogram records, in nanoseconds, the time between its timer's runs: the resolution plus the delay.
    // Empty, its percentiles are 0 and its min is huge.
    const delay = (ns: number): number => Math.max(0, ns - this.#resolutionNs) / 1e9;
    const d =
      h.count === 0
        ? { p50: 0, p99: 0, max: 0 }
        : { p50: delay(h.percentile(50)), p99: delay(h.percentile(99)), max: delay(h.max) };
    h.reset();
    this.#last = d;
    return d;
  }

  close(): void {
    this.#histogram.disable();
  }
}
