import type { Lease } from '../../core/lease.js';
import type { Logger } from '../../core/logger.js';
import type { Node } from '../../core/node.js';
import type { NodeLifecycleConfig } from './config.js';
import type { EventRecorder } from './events.js';
import { leaseRenewIntervalTooLong } from './node-health.js';

/** What LeaseWarnings reads and memoises on the controller's record of a node (see NodeRecord). */
export interface LeaseChecked {
  lease: Lease | undefined;
  health: { lease: Lease | undefined } | undefined;
  leaseChecked: Lease | undefined;
  leaseCheckedDuration: number | undefined;
}

type Periods = Pick<NodeLifecycleConfig, 'nodeMonitorPeriodMs' | 'nodeMonitorGracePeriodMs'>;

/**
 * LeaseRenewIntervalTooLong (docs/node-lifecycle.md#d13-upstream-defaults-and-safety-checks), once per lease (and again if its duration changes), when renewals
 * cannot beat the grace. Checked for a node whose cached lease changed since its last check; the verdict depends
 * only on the lease duration, so a renewal (a new object, the same duration) costs one comparison.
 */
export class LeaseWarnings {
  readonly #events: EventRecorder;
  readonly #log: Logger;
  readonly #config: Periods;
  /** Node name → the lease duration last warned about. */
  readonly #warned = new Map<string, number>();

  constructor(events: EventRecorder, log: Logger, config: Periods) {
    this.#events = events;
    this.#log = log;
    this.#config = config;
  }

  check(rec: LeaseChecked, node: Node): void {
    rec.leaseChecked = rec.lease;
    const lease = rec.health?.lease;
    if (lease === undefined || lease.spec.leaseDurationSeconds === rec.leaseCheckedDuration) return;
    this.#announce(node, lease);
    rec.leaseCheckedDuration = lease.spec.leaseDurationSeconds;
  }

  /** Forgets a node the controller no longer knows. */
  forget(name: string): void {
    this.#warned.delete(name);
  }

  #announce(node: Node, lease: Lease): void {
    const config = this.#config;
    const name = node.metadata.name;
    const duration = lease.spec.leaseDurationSeconds;
    if (this.#warned.get(name) === duration) return;
    if (!leaseRenewIntervalTooLong(lease, config.nodeMonitorPeriodMs, config.nodeMonitorGracePeriodMs)) {
      this.#warned.delete(name);
      return;
    }
    this.#warned.set(name, duration);
    const message =
      `Lease of node ${name} renews every ${duration / 4}s (leaseDurationSeconds/4); plus the ${config.nodeMonitorPeriodMs / 1000}s monitor period ` +
      `that is not shorter than the ${config.nodeMonitorGracePeriodMs / 1000}s grace period, so the node can look dead between two renewals: ` +
      'lower the agent lease duration or raise --node-monitor-grace-period';
    this.#log.warn({ node: name, leaseDurationSeconds: duration }, message);
    this.#events.emit({ kind: 'Node', name, uid: node.metadata.uid }, 'Warning', 'LeaseRenewIntervalTooLong', message);
  }
}
