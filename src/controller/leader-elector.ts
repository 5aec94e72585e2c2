import type { ResourceClient } from '../client/api-client.js';
import { formatTime, isAbortError } from '../core/clock.js';
import { isReason } from '../core/errors.js';
import { SYSTEM_NAMESPACE, type Lease, type LeaseSpec } from '../core/lease.js';
import { objectKey } from '../core/object-key.js';
import type { LeaderElectionDeps } from './leader-election.js';

/** The lock Lease's name unless the config gives one; docs/architecture.md#controllers says why it keeps this one. */
export const LEADER_ELECTION_LEASE_NAME = 'shepherd-node-lifecycle-controller';

/**
 * One candidate's view of the lock Lease (client-go's LeaseLock with tryAcquireOrRenew and release): single
 * attempts to take, renew or give up the lock, each at most one read and one write. When to attempt, and what a
 * failed renewal means for the leader, is runLeaderElection's (leader-election.ts).
 *
 * Expiry is judged like client-go's observedTime: when the record (spec) last changed *as we saw it*, on our
 * monotonic clock, plus the record's leaseDurationSeconds. The holder's renewTime is only compared for change,
 * never with our clock, so clock skew cannot steal a lease.
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
