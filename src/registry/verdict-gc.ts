import { parseTime, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { DEFAULT_VERDICT_TTL_MS } from '../core/verdict.js';
import { DEFAULT_EVENT_GC_INTERVAL_MS } from './event-gc.js';
import { deleteEach, pickInPages, runPeriodicGc } from './periodic-gc.js';
import type { Registry } from './registry.js';

export interface VerdictGcDeps {
  registry: Registry;
  clock: Clock;
  /** `--verdict-ttl`, default 24 h. */
  ttlMs?: number;
  intervalMs?: number;
  log: Logger;
  signal: AbortSignal;
}

/** Deletes every Verdict created longer than the TTL ago; answers how many it deleted. */
export async function collectExpiredVerdicts(
  registry: Registry,
  clock: Clock,
  ttlMs: number = DEFAULT_VERDICT_TTL_MS,
): Promise<number> {
  const cutoff = clock.now() - ttlMs;
  const { refs } = await pickInPages(
    registry.store,
    'verdicts',
    (v) => parseTime(v.metadata.creationTimestamp) < cutoff,
  );
  return deleteEach(
    refs,
    () => true,
    (v, rv) => registry.verdicts.delete(v.metadata.name, { expectedResourceVersion: rv }),
  );
}

/** Runs collectExpiredVerdicts every intervalMs (default once a minute) until the signal aborts. */
export function startVerdictGc(deps: VerdictGcDeps): Promise<void> {
  const ttlMs = deps.ttlMs ?? DEFAULT_VERDICT_TTL_MS;
  const intervalMs = deps.intervalMs ?? DEFAULT_EVENT_GC_INTERVAL_MS;
  return runPeriodicGc({ ...deps, intervalMs }, 'expired verdicts', () =>
    collectExpiredVerdicts(deps.registry, deps.clock, ttlMs),
  );
}
