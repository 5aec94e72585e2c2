import { Gauge, type Registry } from 'prom-client';

/**
 * Registers a gauge whose value is read when /metrics is scraped (prom-client calls `collect` before it serializes
 * the metric), so nothing has to keep it up to date. In `api/` because it is the lowest layer that may use
 * prom-client and that `main/` may import (docs/architecture.md#layers).
 */
export function registerCollectedGauge(registry: Registry, name: string, help: string, value: () => number): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(value());
    },
  });
}
