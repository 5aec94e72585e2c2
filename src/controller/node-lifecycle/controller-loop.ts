import { isAbortError, type Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';

const SYNC_POLL_MS = 100;

export interface LoopDeps {
  clock: Clock;
  log: Logger;
  /** Both informer caches have synced (the first pass waits for them). */
  synced: () => boolean;
  periodMs: number;
  tainterPeriodMs: number;
  pass: () => Promise<void>;
  tainter: () => Promise<void>;
}

/**
 * The controller's one loop (docs/node-lifecycle.md#d5-one-loop-in-a-fixed-order): once the caches have synced, a
 * monitor pass every period counted from the end of the previous one, and the NoExecute tainter every tainter period
 * in between. A failing pass is logged and the loop goes on at the next tick. Resolves when the signal aborts.
 */
export async function runLoop(deps: LoopDeps, signal: AbortSignal): Promise<void> {
  const { clock, log } = deps;
  try {
    while (!deps.synced()) await clock.sleep(SYNC_POLL_MS, signal);
  } catch (err) {
    if (isAbortError(err) || signal.aborted) return;
    throw err;
  }
  let nextPass = clock.monotonic();
  while (!signal.aborted) {
    const isPass = clock.monotonic() >= nextPass;
    try {
      if (isPass) await deps.pass();
      else await deps.tainter();
    } catch (err) {
      log.error({ err }, 'node lifecycle pass failed; retrying at the next tick');
    }
    // Set even when the pass failed, so a failing pass cannot turn the loop into a busy loop.
    if (isPass) nextPass = clock.monotonic() + deps.periodMs;
    try {
      await clock.sleep(Math.max(0, Math.min(deps.tainterPeriodMs, nextPass - clock.monotonic())), signal);
    } catch {
      return;
    }
  }
}
