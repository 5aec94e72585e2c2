import { backoffCeiling, type BackoffPolicy } from '../client/backoff.js';
import type { Clock } from '../core/clock.js';
import { ShepherdError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';

/**
 * The kubelet lease controller's backoffEnsureLease (component-helpers/apimachinery/lease): the sleep starts at
 * 100 ms and is doubled *before* each wait, capped at 7 s, so waits go 200 ms, 400 ms, … 6.4 s, 7 s, 7 s.
 */
export const LEASE_BACKOFF: BackoffPolicy = { initialMs: 200, maxMs: 7_000 };

/**
 * Deterministic doubling backoff (no jitter, as upstream: agents fail at different moments, so their retries are
 * already spread). `next(err)` never returns less than the server's Retry-After carried by the error.
 */
export class Backoff {
  readonly #policy: BackoffPolicy;
  #attempt = 0;

  constructor(policy: BackoffPolicy = LEASE_BACKOFF) {
    this.#policy = policy;
  }

  next(err?: unknown): number {
    const wait = backoffCeiling(this.#policy, this.#attempt++);
    return Math.max(wait, retryAfterMs(err) ?? 0);
  }
}

/** `retryAfterSeconds` of a TooManyRequests / ServiceUnavailable answer, in ms (undefined when absent). */
export function retryAfterMs(err: unknown): number | undefined {
  if (!(err instanceof ShepherdError)) return undefined;
  const s = err.details?.retryAfterSeconds;
  return typeof s === 'number' && s > 0 ? s * 1000 : undefined;
}

/** A short, stable key for "the same kind of failure", so a changed cause is logged once more. */
export function failureKind(err: unknown): string {
  if (err instanceof ShepherdError) return err.reason;
  if (err instanceof Error) return err.name;
  return typeof err;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Tracks an outage so a loop logs its first failure and its recovery, not every retry: a fleet of agents
 * retrying every 7 s against a dead server must not flood the logs. A different kind of failure (say the
 * server came back but now answers 403) is logged once more, because it needs a different fix.
 */
export class FailureLog {
  readonly #log: Logger;
  readonly #what: string;
  readonly #clock: Clock;
  #since: number | undefined;
  #failures = 0;
  #kind: string | undefined;

  constructor(log: Logger, clock: Clock, what: string) {
    this.#log = log;
    this.#clock = clock;
    this.#what = what;
  }

  failure(err: unknown, retryHint: string): void {
    const kind = failureKind(err);
    this.#failures++;
    if (this.#since === undefined || kind !== this.#kind) {
      this.#log.warn(
        { err: errorMessage(err), reason: kind },
        `${this.#what} failed: ${errorMessage(err)}; ${retryHint}`,
      );
    }
    this.#since ??= this.#clock.monotonic();
    this.#kind = kind;
  }

  /** Returns true when this success ended an outage (and logs it). */
  success(): boolean {
    if (this.#since === undefined) return false;
    const downMs = Math.round(this.#clock.monotonic() - this.#since);
    this.#log.info(
      { failures: this.#failures, downMs },
      `${this.#what} recovered after ${this.#failures} failed attempts over ${downMs}ms`,
    );
    this.#since = undefined;
    this.#failures = 0;
    this.#kind = undefined;
    return true;
  }
}

export interface RetryOptions {
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
  /** What is being retried, for the log lines ("registering node node-1"). */
  what: string;
  /** Errors that must not be retried (they end the loop). */
  isFatal?: (err: unknown) => boolean;
  policy?: BackoffPolicy;
}

/**
 * Runs op until it succeeds, backing off (LEASE_BACKOFF, honouring Retry-After) between failures; never gives up.
 * Ends only when the signal aborts (rejects with the AbortError) or op throws a fatal error.
 */
export async function retryForever<T>(op: () => Promise<T>, options: RetryOptions): Promise<T> {
  const backoff = new Backoff(options.policy);
  const failures = new FailureLog(options.log, options.clock, options.what);
  const cap = (options.policy ?? LEASE_BACKOFF).maxMs;
  for (;;) {
    options.signal.throwIfAborted();
    try {
      const result = await op();
      failures.success();
      return result;
    } catch (err) {
      if (options.signal.aborted) throw err;
      if (options.isFatal?.(err)) throw err;
      failures.failure(err, `retrying with backoff up to ${cap}ms; further failures are not logged until it recovers`);
      await options.clock.sleep(backoff.next(err), options.signal);
    }
  }
}
