/**
 * Every long-lived part takes a Clock. Domain code never calls Date.now(), setTimeout or setInterval directly,
 * so unit tests drive a FakeClock (test/support/fake-clock.ts) and never sleep.
 */
export interface Clock {
  /** Wall-clock time in ms since the epoch (for timestamps written into objects). */
  now(): number;
  /** Monotonic time in ms (for grace periods and intervals; never jumps with NTP). */
  monotonic(): number;
  /** Resolves after ms, or rejects with an AbortError when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('The operation was aborted');
  err.name = 'AbortError';
  return err;
}

/**
 * An abort (AbortSignal.abort, or AbortSignal.timeout's TimeoutError). Node throws these as DOMExceptions whose
 * `name` is the only thing that tells them apart, so here, and only here, the name is what we branch on.
 */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/** Resolves when `event` settles or after `ms` on `clock`, whichever comes first; the timer never outlives it. */
export async function waitAtMost(clock: Clock, event: Promise<unknown>, ms: number): Promise<void> {
  const timer = new AbortController();
  try {
    await Promise.race([event, clock.sleep(ms, timer.signal).catch(() => undefined)]);
  } finally {
    timer.abort();
  }
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortError(signal));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** RFC 3339 UTC with milliseconds, the API's time format. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function parseTime(s: string): number {
  return Date.parse(s);
}
