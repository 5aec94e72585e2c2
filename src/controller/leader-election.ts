import type { ApiClient } from '../client/api-client.js';
import { isAbortError, type Clock } from '../core/clock.js';
import { InvalidError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { systemRandom, type Random } from '../core/random.js';
import { LeaderElector } from './leader-elector.js';

/** client-go leaderelection, with the kube-controller-manager flag defaults (--leader-elect-*). */
export interface LeaderElectionConfig {
  /** How long a lease that stopped changing is respected before others take it (default 15s). */
  leaseDurationMs: number;
  /** The leader gives up when it could not renew for this long (default 10s). */
  renewDeadlineMs: number;
  /** Between acquire and renew attempts (default 2s). */
  retryPeriodMs: number;
  /** `${hostname}_${pid}`: what `spec.holderIdentity` shows. */
  identity: string;
  namespace?: string;
  name?: string;
}

export interface LeaderElectionCallbacks {
  /** Runs while we lead; `signal` aborts when leadership ends. Must stop writing when it aborts. */
  onStartedLeading(signal: AbortSignal): Promise<void> | void;
  onStoppedLeading(): void;
  /** The observed holder changed (ourselves included). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionDeps {
  client: ApiClient;
  clock: Clock;
  log: Logger;
  config: LeaderElectionConfig;
  /** Jitter of the acquire retries; default systemRandom. */
  random?: Random;
}

/** The --leader-elect-* defaults (kube-controller-manager's). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** client-go's JitterFactor: acquire retries wait retryPeriod × (1 + up to 1.2). */
export const JITTER_FACTOR = 1.2;

/** client-go's NewLeaderElector checks, so a misconfiguration fails at start, not during a failover. */
export function validateLeaderElectionConfig(c: LeaderElectionConfig): void {
  const causes: { field: string; message: string }[] = [];
  if (!(c.retryPeriodMs > 0)) causes.push({ field: 'leader-elect-retry-period', message: 'must be greater than zero' });
  if (!(c.leaseDurationMs > c.renewDeadlineMs)) {
    causes.push({
      field: 'leader-elect-lease-duration',
      message: 'must be greater than --leader-elect-renew-deadline',
    });
  }
  if (!(c.renewDeadlineMs > JITTER_FACTOR * c.retryPeriodMs)) {
    causes.push({
      field: 'leader-elect-renew-deadline',
      message: `must be greater than ${JITTER_FACTOR} × --leader-elect-retry-period`,
    });
  }
  if (c.identity === '') causes.push({ field: 'identity', message: 'must not be empty' });
  if (causes.length > 0) {
    throw new InvalidError(
      `invalid leader election settings: ${causes.map((x) => `--${x.field} ${x.message}`).join('; ')}`,
      causes,
    );
  }
}

/**
 * client-go LeaderElector.Run: wait until we acquire the lease (retrying every retryPeriod with jitter), run
 * onStartedLeading, renew every retryPeriod, and stop leading when a renewal has not succeeded within
 * renewDeadline (the leading signal aborts, then onStoppedLeading runs). Resolves when leadership ends or
 * `signal` aborts; on abort a held lease is released. The caller decides whether to campaign again
 * (kube-controller-manager exits instead).
 */
export async function runLeaderElection(
  deps: LeaderElectionDeps,
  callbacks: LeaderElectionCallbacks,
  signal: AbortSignal,
): Promise<void> {
  validateLeaderElectionConfig(deps.config);
  const { clock, config } = deps;
  const log = deps.log.child({ component: 'leader-election', identity: config.identity });
  const elector = new LeaderElector({ ...deps, log }, callbacks.onNewLeader);
  log.info({ lease: elector.leaseRef }, 'attempting to acquire the leader lease');
  if (!(await acquire(elector, deps, signal))) return;
  log.info({ lease: elector.leaseRef }, 'successfully acquired the leader lease');

  const leading = new AbortController();
  const crashed = new AbortController();
  const started = (async () => {
    try {
      await callbacks.onStartedLeading(leading.signal);
    } catch (err) {
      if (leading.signal.aborted && isAbortError(err)) return;
      log.error({ err }, 'the leader work failed; giving up leadership');
      crashed.abort();
    }
  })();
  const outcome = await renewLoop(elector, deps, AbortSignal.any([signal, crashed.signal]));
  if (outcome === 'lost')
    log.error(
      { lease: elector.leaseRef },
      `leader election lost: no renewal succeeded within ${config.renewDeadlineMs} ms`,
    );
  leading.abort();
  await started;
  // Release only after the leader work has stopped writing, so the successor never overlaps with it.
  if (outcome === 'stopped')
    await withDeadline(clock, config.renewDeadlineMs, undefined, (s) => elector.release(s), false);
  callbacks.onStoppedLeading();
}

async function acquire(elector: LeaderElector, deps: LeaderElectionDeps, signal: AbortSignal): Promise<boolean> {
  const { clock, config } = deps;
  const random = deps.random ?? systemRandom;
  for (;;) {
    if (signal.aborted) return false;
    if (await elector.tryAcquireOrRenew(signal)) return true;
    try {
      await clock.sleep(config.retryPeriodMs * (1 + random.next() * JITTER_FACTOR), signal);
    } catch {
      return false;
    }
  }
}

/** client-go renew(): each round retries every retryPeriod until it succeeds or renewDeadline has passed. */
async function renewLoop(
  elector: LeaderElector,
  deps: LeaderElectionDeps,
  signal: AbortSignal,
): Promise<'lost' | 'stopped'> {
  const { clock, config } = deps;
  for (;;) {
    try {
      await clock.sleep(config.retryPeriodMs, signal);
    } catch {
      return 'stopped';
    }
    const start = clock.monotonic();
    for (;;) {
      const remaining = config.renewDeadlineMs - (clock.monotonic() - start);
      if (remaining <= 0) return 'lost';
      if (await withDeadline(clock, remaining, signal, (s) => elector.tryAcquireOrRenew(s), false)) break;
      if (signal.aborted) return 'stopped';
      try {
        await clock.sleep(Math.min(config.retryPeriodMs, config.renewDeadlineMs - (clock.monotonic() - start)), signal);
      } catch {
        return 'stopped';
      }
    }
  }
}

/** Runs fn with a signal that aborts after `ms` (on `clock`) or with `parent`; answers `fallback` on timeout. */
async function withDeadline<T>(
  clock: Clock,
  ms: number,
  parent: AbortSignal | undefined,
  fn: (s: AbortSignal) => Promise<T>,
  fallback: T,
): Promise<T> {
  const call = new AbortController();
  const timer = new AbortController();
  const onAbort = (): void => call.abort();
  parent?.addEventListener('abort', onAbort, { once: true });
  const timeout = clock.sleep(ms, timer.signal).then(
    () => {
      call.abort();
      return fallback;
    },
    () => fallback,
  );
  try {
    return await Promise.race([fn(call.signal), timeout]);
  } finally {
    timer.abort();
    parent?.removeEventListener('abort', onAbort);
  }
}
