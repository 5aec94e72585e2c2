import { parseTime, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { deleteEach, runPeriodicGc } from './periodic-gc.js';
import type { Registry } from './registry.js';

/** Kubernetes' --event-ttl default. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60_000;
export const DEFAULT_EVENT_GC_INTERVAL_MS = 60_000;

export interface EventGcDeps {
  registry: Registry;
  clock: Clock;
  ttlMs?: number;
  intervalMs?: number;
  log: Logger;
  signal: AbortSignal;
}

/**
 * Deletes every Event whose lastTimestamp is older than the TTL; answers how many it deleted. Each delete
 * carries the resourceVersion it judged, so an Event folded meanwhile (fresh lastTimestamp) survives.
 */
export async function collectExpiredEvents(
  registry: Registry,
  clock: Clock,
  ttlMs: number = DEFAULT_EVENT_TTL_MS,
): Promise<number> {
  const cutoff = clock.now() - ttlMs;
  const { items } = await registry.events.list();
  return deleteEach(
    items,
    (ev) => parseTime(ev.lastTimestamp) < cutoff,
    (ev, rv) => registry.events.delete(ev.metadata.name, { expectedResourceVersion: rv }),
  );
}

/** Runs collectExpiredEvents every intervalMs until the signal aborts; resolves then. */
export function startEventGc(deps: EventGcDeps): Promise<void> {
  const ttlMs = deps.ttlMs ?? DEFAULT_EVENT_TTL_MS;
  const intervalMs = deps.intervalMs ?? DEFAULT_EVENT_GC_INTERVAL_MS;
  return runPeriodicGc({ ...deps, intervalMs }, 'expired events', () =>
    collectExpiredEvents(deps.registry, deps.clock, ttlMs),
  );
}
