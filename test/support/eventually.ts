import { inspect } from 'node:util';

export interface EventuallyOptions {
  /** What is awaited, for the failure message: "the lease cache at resourceVersion 47". */
  what: string;
  /** Default 15 s: generous for e2e tests on a loaded 2-core machine; a passing test never waits it out. */
  timeoutMs?: number;
  /** Fixed poll interval; by default 5 ms, doubling to 100 ms (quick for in-process state, light on a server). */
  intervalMs?: number;
  /** The state to show when it times out, e.g. `() => cache.lastSyncResourceVersion()`; default: what `fn` returned. */
  last?: () => unknown;
}

/**
 * Polls `fn` until it returns a truthy value, and returns that value: the one way tests wait for a state
 * (in-process or in a spawned server) instead of sleeping a fixed time. A throw from `fn` counts as "not yet".
 * On timeout it fails naming what it awaited and the last value (or error) it saw.
 */
export async function eventually<T>(
  fn: () => T | Promise<T>,
  options: EventuallyOptions,
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  let delay = options.intervalMs ?? 5;
  let last: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    try {
      const value = await fn();
      if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() >= deadline) {
      const parts = [`timed out after ${timeoutMs} ms waiting for ${options.what}`];
      if (options.last) parts.push(`state: ${show(options.last())}`);
      if ('error' in last) parts.push(`last error: ${String(last.error)}`);
      else if (!options.last) parts.push(`last value: ${show(last.value)}`);
      throw new Error(parts.join('; '), { cause: 'error' in last ? last.error : undefined });
    }
    await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(0, deadline - Date.now()))));
    if (options.intervalMs === undefined) delay = Math.min(delay * 2, 100);
  }
}

function show(value: unknown): string {
  const s = inspect(value, { depth: 3, breakLength: Infinity });
  return s.length > 800 ? `${s.slice(0, 800)}…` : s;
}
