import { parseTime, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { deleteEach, pickInPages, runPeriodicGc } from './periodic-gc.js';
import type { Registry } from './registry.js';
import { RevisionTimes } from './revision-times.js';

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
 * Deletes every Event last written more than the TTL ago by the server's own clock (`times`, from its
 * resourceVersion), or whose lastTimestamp is older than the TTL (a client's time can only shorten an Event's
 * life: one far in the future no longer keeps it for ever); answers how many it deleted. Each delete carries the
 * resourceVersion it judged, so an Event folded meanwhile survives.
 */
export async function collectExpiredEvents(
  registry: Registry,
  clock: Clock,
  ttlMs: number = DEFAULT_EVENT_TTL_MS,
  times: RevisionTimes = new RevisionTimes(),
): Promise<number> {
  const now = clock.now();
  const cutoff = now - ttlMs;
  // Everything the list holds was written by now (recorded before the list, so none is judged by a later time).
  times.record(now, await registry.store.currentRevision());
  times.prune(cutoff);
  const { refs } = await pickInPages(registry.store, 'events', (ev) => {
    // Expired by its own lastTimestamp, or by the server's time of its last write (a client cannot date it ahead).
    const writtenBy = times.writtenBy(Number(ev.metadata.resourceVersion));
    return parseTime(ev.lastTimestamp) < cutoff || (writtenBy !== undefined && writtenBy < cutoff);
  });
  return deleteEach(
    refs,
    () => true,
    (ev, rv) => registry.events.delete(ev.metadata.name, { expectedResourceVersion: rv }),
  );
}

/** Runs collectExpiredEvents every intervalMs until the signal aborts; resolves then. */
export async function startEventGc(deps: EventGcDeps): Promise<void> {
  const ttlMs = deps.ttlMs ?? DEFAULT_EVENT_TTL_MS;
  const intervalMs = deps.intervalMs ?? DEFAULT_EVENT_GC_INTERVAL_MS;
  // Everything in the store now was written by now: Events from before a restart live at most one TTL more.
  const times = new RevisionTimes();
  try {
    times.record(deps.clock.now(), await deps.registry.store.currentRevision());
  } catch (err) {
    deps.log.warn({ err }, 'could not read the store revision; Events written before now expire by lastTimestamp');
  }
  await runPeriodicGc({ ...deps, intervalMs }, 'expired events', () =>
    collectExpiredEvents(deps.registry, deps.clock, ttlMs, times),
  );
}
