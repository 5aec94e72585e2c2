import { isAbortError, parseTime, type Clock } from '../core/clock.js';
import { isReason } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
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
  let deleted = 0;
  for (const ev of items) {
    const last = parseTime(ev.lastTimestamp);
    if (!(last < cutoff)) continue;
    try {
      await registry.events.delete(ev.metadata.name, { expectedResourceVersion: ev.metadata.resourceVersion });
      deleted++;
    } catch (err) {
      if (!isReason(err, 'NotFound') && !isReason(err, 'Conflict')) throw err;
    }
  }
  return deleted;
}

/**
 * Runs collectExpiredEvents every intervalMs until the signal aborts; resolves then. A failed pass is logged
 * and retried on the next tick (the store may be briefly unavailable).
 */
export async function startEventGc(deps: EventGcDeps): Promise<void> {
  const ttlMs = deps.ttlMs ?? DEFAULT_EVENT_TTL_MS;
  const intervalMs = deps.intervalMs ?? DEFAULT_EVENT_GC_INTERVAL_MS;
  while (!deps.signal.aborted) {
    try {
      await deps.clock.sleep(intervalMs, deps.signal);
    } catch (err) {
      if (isAbortError(err) || deps.signal.aborted) return;
      throw err;
    }
    try {
      const deleted = await collectExpiredEvents(deps.registry, deps.clock, ttlMs);
      if (deleted > 0) deps.log.debug({ deleted, ttlMs }, 'deleted expired events');
    } catch (err) {
      deps.log.warn({ err }, 'event garbage collection failed; retrying at the next interval');
    }
  }
}
