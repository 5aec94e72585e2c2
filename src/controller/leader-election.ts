import type { ApiClient, ResourceClient } from '../client/api-client.js';
import { formatTime, isAbortError, type Clock } from '../core/clock.js';
import { InvalidError, isReason } from '../core/errors.js';
import { SYSTEM_NAMESPACE, type Lease, type LeaseSpec } from '../core/lease.js';
import type { Logger } from '../core/logger.js';
import { objectKey } from '../core/object-key.js';
import { systemRandom, type Random } from '../core/random.js';

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

export const LEADER_ELECTION_LEASE_NAME = 'shepherd-node-lifecycle-controller';
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
 * One candidate's view of the lock Lease. Expiry is judged like client-go's observedTime: when the record
 * (spec) last changed *as we saw it*, on our monotonic clock, plus the record's leaseDurationSeconds. The
 * holder's renewTime is only compared for change, never with our clock, so clock skew cannot steal a lease.
 */
export class LeaderElector {
  readonly #deps: LeaderElectionDeps;
  readonly #leases: ResourceClient<Lease>;
  readonly #name: string;
  readonly #namespace: string;
  #lease: Lease | undefined;
  #observed: { record: string; at: number } | undefined;
  #reportedLeader: string | undefined;
  readonly #onNewLeader: ((id: string) => void) | undefined;

  constructor(deps: LeaderElectionDeps, onNewLeader?: (id: string) => void) {
    this.#deps = deps;
    this.#namespace = deps.config.namespace ?? SYSTEM_NAMESPACE;
    this.#name = deps.config.name ?? LEADER_ELECTION_LEASE_NAME;
    this.#leases = deps.client.leases(this.#namespace);
    this.#onNewLeader = onNewLeader;
  }

  get leaseRef(): string {
    return objectKey({ namespace: this.#namespace, name: this.#name });
  }

  /** True when the last lease we saw or wrote names us. */
  get isLeader(): boolean {
    return this.#lease?.spec.holderIdentity === this.#deps.config.identity;
  }

  /** client-go tryAcquireOrRenew: true when we hold the lease after this call. Never throws. */
  async tryAcquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    const { config, clock, log } = this.#deps;
    const now = formatTime(clock.now());
    const durationSeconds = Math.ceil(config.leaseDurationMs / 1000);
    let current: Lease;
    try {
      current = await this.#leases.get(this.#name, signalOpt(signal));
    } catch (err) {
      if (!isReason(err, 'NotFound')) {
        log.warn({ err, lease: this.leaseRef }, 'could not read the leader election lease; retrying');
        return false;
      }
      const spec: LeaseSpec = {
        holderIdentity: config.identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      };
      return this.#write(() =>
        this.#leases.create({ metadata: { name: this.#name, namespace: this.#namespace }, spec }, signalOpt(signal)),
      );
    }
    this.#observe(current);
    const held = current.spec.holderIdentity;
    if (held !== config.identity && !this.#expired(current.spec)) return false;
    const spec: LeaseSpec =
      held === config.identity
        ? { ...current.spec, leaseDurationSeconds: durationSeconds, renewTime: now }
        : {
            holderIdentity: config.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: (current.spec.leaseTransitions ?? 0) + 1,
          };
    // Optimistic locking on the resourceVersion we read: a concurrent candidate's write makes ours a Conflict.
    return this.#write(() => this.#leases.update({ ...current, spec }, signalOpt(signal)));
  }

  /**
   * client-go ReleaseOnCancel: shorten our lease to 1 s so a successor takes over at its next retry instead
   * of waiting out leaseDuration. (The Lease schema needs a holderIdentity, so it is kept, not cleared.)
   */
  async release(signal?: AbortSignal): Promise<boolean> {
    const lease = this.#lease;
    if (!lease || !this.isLeader) return false;
    const now = formatTime(this.#deps.clock.now());
    const spec: LeaseSpec = { ...lease.spec, leaseDurationSeconds: 1, renewTime: now };
    const ok = await this.#write(() => this.#leases.update({ ...lease, spec }, signalOpt(signal)));
    if (ok) this.#deps.log.info({ lease: this.leaseRef }, 'released the leader election lease');
    return ok;
  }

  async #write(fn: () => Promise<Lease>): Promise<boolean> {
    try {
      const written = await fn();
      this.#observe(written);
      return true;
    } catch (err) {
      // Conflict / AlreadyExists: another candidate wrote first, the normal way to lose a race.
      const raced = isReason(err, 'Conflict') || isReason(err, 'AlreadyExists');
      if (!raced && !isAbortError(err))
        this.#deps.log.warn({ err, lease: this.leaseRef }, 'could not write the leader election lease; retrying');
      return false;
    }
  }

  #observe(lease: Lease): void {
    this.#lease = lease;
    const { holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions } = lease.spec;
    const record = JSON.stringify([holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions]);
    if (this.#observed?.record !== record) this.#observed = { record, at: this.#deps.clock.monotonic() };
    if (holderIdentity !== this.#reportedLeader) {
      this.#reportedLeader = holderIdentity;
      try {
        this.#onNewLeader?.(holderIdentity);
      } catch (err) {
        this.#deps.log.error({ err }, 'onNewLeader callback failed');
      }
    }
  }

  #expired(spec: LeaseSpec): boolean {
    const at = this.#observed?.at ?? this.#deps.clock.monotonic();
    return this.#deps.clock.monotonic() >= at + spec.leaseDurationSeconds * 1000;
  }
}

function signalOpt(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
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
