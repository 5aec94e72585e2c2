import type { NodeLifecycleMetrics } from './metrics.js';

/** The lease circuit breaker as the controller's snapshot shows it. */
export interface BreakerView {
  enabled: boolean;
  holding: boolean;
  trips: number;
  lastError?: string;
  pending: Array<{ resource: string; writtenRv: string; cachedRv: string }>;
}

/**
 * What the lease circuit breaker did, for the snapshot and the metrics: whether the controller holds (its last
 * pass was abandoned), how often a pass was abandoned for something other than the lease cache catching up
 * (a ConsistencyError only waits), and why it last held.
 */
export class BreakerStatus {
  readonly #metrics: NodeLifecycleMetrics;
  #holding = false;
  #trips = 0;
  #lastError: string | undefined;

  constructor(metrics: NodeLifecycleMetrics) {
    this.#metrics = metrics;
  }

  /** A pass was abandoned for `error`; `trip` when it was not the cache catching up. */
  hold(error: Error, trip: boolean): void {
    this.#holding = true;
    this.#lastError = error.message;
    this.#metrics.breakerHolding.set(1);
    if (trip) {
      this.#trips++;
      this.#metrics.breakerTrips.inc();
    }
  }

  /** A pass went through. */
  release(): void {
    this.#holding = false;
    this.#metrics.breakerHolding.set(0);
  }

  view(enabled: boolean, pending: BreakerView['pending']): BreakerView {
    return {
      enabled,
      holding: this.#holding,
      trips: this.#trips,
      pending,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
  }
}
