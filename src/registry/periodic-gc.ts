import { isAbortError, type Clock } from '../core/clock.js';
import { isReason } from '../core/errors.js';
import type { Logger } from '../core/logger.js';

/** What every server-side collector (expired Events, expired Verdicts, orphaned pods) runs on. */
export interface PeriodicGcDeps {
  clock: Clock;
  intervalMs: number;
  log: Logger;
  signal: AbortSignal;
}

/**
 * Deletes each item `doomed` picks, each delete conditional on the resourceVersion it was judged at (so an object
 * changed meanwhile survives until the next pass); objects already gone or changed are skipped. Answers how many
 * it deleted.
 */
export async function deleteEach<T extends { metadata: { resourceVersion: string } }>(
  items: readonly T[],
  doomed: (item: T) => boolean,
  remove: (item: T, expectedResourceVersion: string) => Promise<unknown>,
): Promise<number> {
  let deleted = 0;
  for (const item of items) {
    if (!doomed(item)) continue;
    try {
      await remove(item, item.metadata.resourceVersion);
      deleted++;
    } catch (err) {
      if (!isReason(err, 'NotFound') && !isReason(err, 'Conflict')) throw err;
    }
  }
  return deleted;
}

/**
 * Runs `pass` every intervalMs until the signal aborts; resolves then. A failed pass is logged and retried on the
 * next tick (the store may be briefly unavailable). `what` names the objects in the log ("expired events").
 */
export async function runPeriodicGc(deps: PeriodicGcDeps, what: string, pass: () => Promise<number>): Promise<void> {
  while (!deps.signal.aborted) {
    try {
      await deps.clock.sleep(deps.intervalMs, deps.signal);
    } catch (err) {
      if (isAbortError(err) || deps.signal.aborted) return;
      throw err;
    }
    try {
      const deleted = await pass();
      if (deleted > 0) deps.log.debug({ deleted }, `deleted ${what}`);
    } catch (err) {
      deps.log.warn({ err }, `garbage collection of ${what} failed; retrying at the next interval`);
    }
  }
}
