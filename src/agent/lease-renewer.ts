import type { ApiClient, ResourceClient, ResponseHeaders, Writable } from '../client/api-client.js';
import { formatTime, type Clock } from '../core/clock.js';
import { isReason } from '../core/errors.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../core/lease.js';
import type { Logger } from '../core/logger.js';
import { objectKey } from '../core/object-key.js';
import type { Random } from '../core/random.js';
import { Backoff, FailureLog, retryAfterMs } from './backoff.js';
import { withDeadline } from './deadline.js';

/** kubelet: nodeLeaseRenewIntervalFraction. */
export const RENEW_INTERVAL_FRACTION = 0.25;
/** wait.JitterUntil(sync, renewInterval, 0.04, sliding=true) in the lease controller. */
export const RENEW_JITTER_FACTOR = 0.04;
/** maxUpdateRetries in component-helpers/apimachinery/lease. */
export const MAX_UPDATE_RETRIES = 5;

export interface LeaseRenewerConfig {
  nodeName: string;
  leaseDurationSeconds: number;
}

export interface LeaseRenewerDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  log: Logger;
  config: LeaseRenewerConfig;
  /** Called when renewals succeed again after failures (the agent then re-posts its status). */
  onRecovered?: () => void;
  /**
   * Called when a renewal's answer says the Node's Ready status is not True (`shepherd-node-ready`,
   * docs/node-lifecycle.md#agent-heal): the status as the server stores it.
   */
  onNodeNotReady?: (status: string) => void;
}

/** The lease renewal's answer header naming the Node's Ready status when it is not True (src/api/node-ready-index.ts). */
export const NODE_READY_HEADER = 'shepherd-node-ready';

export interface RenewalStats {
  renewals: number;
  renewalFailures: number;
  lastRenewalLatencyMs?: number;
}

export function renewIntervalMs(leaseDurationSeconds: number): number {
  return leaseDurationSeconds * 1000 * RENEW_INTERVAL_FRACTION;
}

/** A fresh node lease held by nodeName (kubelet newLease(nil)). */
export function newNodeLease(nodeName: string, leaseDurationSeconds: number, nowMs: number): Writable<Lease> {
  const now = formatTime(nowMs);
  return {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: { name: nodeName, namespace: NODE_LEASE_NAMESPACE },
    spec: { holderIdentity: nodeName, leaseDurationSeconds, acquireTime: now, renewTime: now },
  };
}

/**
 * The kubelet's node lease controller (component-helpers/apimachinery/lease/controller.go). holderIdentity is
 * set only at registration; each renewal overwrites renewTime and leaseDurationSeconds with an optimistic PUT
 * on the cached resourceVersion, so a healthy agent costs the API one small write per interval and no read.
 */
export class LeaseRenewer {
  readonly #deps: LeaseRenewerDeps;
  readonly #client: ResourceClient<Lease>;
  readonly #failures: FailureLog;
  #latest: Lease | undefined;
  /** The renewTime of our last successful write, to recognise another writer's renewals. */
  #lastRenewTime: string | undefined;
  #lastSuccessMono: number | undefined;
  #twinReported = false;
  #stats: RenewalStats = { renewals: 0, renewalFailures: 0 };

  constructor(deps: LeaseRenewerDeps) {
    this.#deps = deps;
    this.#client = deps.client.leases(NODE_LEASE_NAMESPACE);
    this.#failures = new FailureLog(
      deps.log,
      deps.clock,
      `renewing lease ${objectKey({ namespace: NODE_LEASE_NAMESPACE, name: deps.config.nodeName })}`,
    );
  }

  /** The lease registration created or adopted: the first renewal PUTs on top of it. */
  adopt(lease: Lease): void {
    this.#latest = lease;
    this.#lastRenewTime = lease.spec.renewTime;
  }

  stats(): RenewalStats {
    return { ...this.#stats };
  }

  /** renewInterval × (1 + U[0, 0.04)): between 10.0 s and 10.4 s for a 40 s lease. */
  nextDelayMs(): number {
    return (
      renewIntervalMs(this.#deps.config.leaseDurationSeconds) * (1 + RENEW_JITTER_FACTOR * this.#deps.random.next())
    );
  }

  /** Renews until the signal aborts; each wait is counted from the end of the previous round (sliding). */
  async run(signal: AbortSignal): Promise<void> {
    try {
      for (;;) {
        await this.#deps.clock.sleep(this.nextDelayMs(), signal);
        await this.sync(signal);
      }
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
  }

  /** One round (kubelet sync): optimistic update of the cached lease, else GET-or-create with backoff, then update. */
  async sync(signal: AbortSignal): Promise<void> {
    if (this.#latest !== undefined && (await this.#retryUpdate(this.#latest, signal))) return;
    const { lease, created } = await this.#backoffEnsure(signal);
    if (!created) await this.#retryUpdate(lease, signal);
  }

  /** Up to 5 attempts; a 409 re-GETs and continues without counting as a failure (upstream LEASET "optimistic lock errors"). */
  async #retryUpdate(base: Lease, signal: AbortSignal): Promise<boolean> {
    let current = base;
    for (let attempt = 0; attempt < MAX_UPDATE_RETRIES; attempt++) {
      const started = this.#deps.clock.monotonic();
      try {
        const renewed = await this.#call(signal, 'lease update', (s) =>
          this.#client.update(this.#renewed(current), { signal: s, onResponseHeaders: this.#onHeaders }),
        );
        this.#succeeded(renewed, this.#deps.clock.monotonic() - started);
        return true;
      } catch (err) {
        if (signal.aborted) throw err;
        if (isReason(err, 'Conflict')) {
          const fresh = await this.#backoffEnsure(signal);
          if (fresh.created) return true;
          this.#checkForeignRenewal(fresh.lease);
          current = fresh.lease;
          continue;
        }
        // Deleted under us (its node was deleted, or by hand): fall through to GET-or-create at once.
        if (isReason(err, 'NotFound')) return false;
        this.#failed(err);
        const wait = retryAfterMs(err);
        if (wait !== undefined) await this.#deps.clock.sleep(wait, signal);
      }
    }
    return false;
  }

  /** kubelet backoffEnsureLease: GET, create on NotFound; on failure wait 200 ms, 400 ms, … 7 s, forever. */
  async #backoffEnsure(signal: AbortSignal): Promise<{ lease: Lease; created: boolean }> {
    const backoff = new Backoff();
    const name = this.#deps.config.nodeName;
    for (;;) {
      try {
        return await this.#ensure(name, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        this.#failed(err);
        await this.#deps.clock.sleep(backoff.next(err), signal);
      }
    }
  }

  async #ensure(name: string, signal: AbortSignal): Promise<{ lease: Lease; created: boolean }> {
    try {
      const lease = await this.#call(signal, 'lease get', (s) => this.#client.get(name, { signal: s }));
      this.#latest = lease;
      return { lease, created: false };
    } catch (err) {
      if (!isReason(err, 'NotFound')) throw err;
    }
    const started = this.#deps.clock.monotonic();
    const draft = newNodeLease(name, this.#deps.config.leaseDurationSeconds, this.#deps.clock.now());
    const lease = await this.#call(signal, 'lease create', (s) => this.#client.create(draft, { signal: s }));
    const key = objectKey({ namespace: NODE_LEASE_NAMESPACE, name });
    this.#deps.log.info({ lease: key }, `lease ${key} was missing; created it again`);
    this.#succeeded(lease, this.#deps.clock.monotonic() - started);
    return { lease, created: true };
  }

  readonly #onHeaders = (headers: ResponseHeaders): void => {
    const v = headers[NODE_READY_HEADER];
    const status = Array.isArray(v) ? v[0] : v;
    if (status !== undefined && status !== '') this.#deps.onNodeNotReady?.(status);
  };

  #renewed(base: Lease): Writable<Lease> {
    return {
      ...base,
      spec: {
        ...base.spec,
        leaseDurationSeconds: this.#deps.config.leaseDurationSeconds,
        renewTime: formatTime(this.#deps.clock.now()),
      },
    };
  }

  #call<T>(signal: AbortSignal, what: string, call: (s: AbortSignal) => Promise<T>): Promise<T> {
    // The kubelet's heartbeat client times out after one update period; one renew interval here.
    return withDeadline(this.#deps.clock, signal, renewIntervalMs(this.#deps.config.leaseDurationSeconds), what, call);
  }

  /**
   * A 409 is normally harmless (a label edit). But a renewTime we did not write means a second agent renews
   * this lease: started with our --node-name while we were cut off from the API, it slipped past the check at
   * registration. Both keep renewing, so either one's death would go unseen: say so loudly, once.
   */
  #checkForeignRenewal(fresh: Lease): void {
    if (this.#twinReported || this.#lastRenewTime === undefined || fresh.spec.renewTime === this.#lastRenewTime) return;
    this.#twinReported = true;
    const lease = objectKey({ namespace: NODE_LEASE_NAMESPACE, name: this.#deps.config.nodeName });
    this.#deps.log.error(
      { lease, holder: fresh.spec.holderIdentity },
      `lease ${lease} was renewed by someone else (holder ${fresh.spec.holderIdentity}) since our last renewal: two agents with one node name would hide each other's death; stop the other agent or give one of them another --node-name`,
    );
  }

  #succeeded(lease: Lease, latencyMs: number): void {
    this.#latest = lease;
    this.#lastRenewTime = lease.spec.renewTime;
    this.#stats.renewals++;
    this.#stats.lastRenewalLatencyMs = latencyMs;
    const now = this.#deps.clock.monotonic();
    // A gap longer than the lease duration with no failure seen means this agent itself was paused (SIGSTOP, a
    // frozen VM): the controller may have marked the node Unknown meanwhile, and only our status post heals it.
    const paused =
      this.#lastSuccessMono !== undefined &&
      now - this.#lastSuccessMono > this.#deps.config.leaseDurationSeconds * 1000;
    this.#lastSuccessMono = now;
    if (this.#failures.success() || paused) this.#deps.onRecovered?.();
  }

  #failed(err: unknown): void {
    this.#stats.renewalFailures++;
    this.#failures.failure(
      err,
      'retrying (waits back off from 200ms to 7s); further failures are not logged until it recovers',
    );
  }
}
