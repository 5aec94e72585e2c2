import type { Clock } from '../core/clock.js';
import { ShepherdError } from '../core/errors.js';

/**
 * Runs one API call with a deadline on the injected clock. The kubelet gives its heartbeat client a timeout of
 * one update period for the same reason: a request hung on a half-open connection must not stall the renewal
 * loop past the controller's grace period. The call is raced against the deadline, so even a client that
 * ignores its signal cannot hold the loop. Aborting `parent` (shutdown) aborts the call too.
 */
export async function withDeadline<T>(
  clock: Clock,
  parent: AbortSignal,
  ms: number,
  what: string,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  parent.throwIfAborted();
  const ac = new AbortController();
  const onParentAbort = (): void => ac.abort(parent.reason);
  parent.addEventListener('abort', onParentAbort, { once: true });
  // Settles the race as soon as either the deadline or a shutdown aborts the call.
  const aborted = new Promise<never>((_, reject) => {
    ac.signal.addEventListener('abort', () => reject(ac.signal.reason), { once: true });
  });
  const timer = new AbortController();
  clock.sleep(ms, timer.signal).then(
    () =>
      ac.abort(
        new ShepherdError(
          'Timeout',
          `${what} got no answer within ${ms}ms; the API server may be overloaded or unreachable`,
        ),
      ),
    () => {},
  );
  try {
    return await Promise.race([call(ac.signal), aborted]);
  } finally {
    parent.removeEventListener('abort', onParentAbort);
    timer.abort();
  }
}
