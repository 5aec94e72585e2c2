import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';

/**
 * Runs `fn` every `periodMs` on the injected clock (counted from the end of the previous run, as
 * `wait.Until`), until `signal` aborts; a run that throws is logged and the loop goes on.
 */
export async function runEvery(
  clock: Clock,
  periodMs: number,
  signal: AbortSignal,
  log: Logger,
  what: string,
  fn: () => Promise<void> | void,
): Promise<void> {
  while (!signal.aborted) {
    try {
      await clock.sleep(periodMs, signal);
    } catch {
      return;
    }
    try {
      await fn();
    } catch (err) {
      log.warn({ err }, `${what} failed; trying again in ${periodMs} ms`);
    }
  }
}

/** Resolves when `signal` aborts (at once if it already has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
