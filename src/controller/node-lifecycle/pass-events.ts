import type { Lease } from '../../core/lease.js';
import type { Logger } from '../../core/logger.js';
import type { Node, NodeCondition } from '../../core/node.js';
import type { NodeLifecycleConfig } from './config.js';
import type { ZoneChange, DisruptionOutcome } from './disruption.js';
import { CONTROLLER_OBJECT, type EventRecorder } from './events.js';
import type { Judged } from './node-evaluator.js';
import { heartbeatTimeoutMessage, leaseRenewIntervalTooLong } from './node-health.js';

/** What the announcements need of the controller's record of a node (see NodeRecord). */
export interface KnownNode {
  /** Ready status after the last judged pass; 'None' when the node had no Ready condition; undefined before. */
  ready: string | undefined;
}

/**
 * docs/node-lifecycle.md#d11-events: NodeNotReady (Warning) once per True → not-True transition, with the evidence
 * when the controller itself marked the node (`marked`: the verdict of this pass's Unknown write); NodeReady when
 * Ready comes back True. The first judgement of a node (e.g. after a restart) announces nothing.
 */
export function announceReadyChange(
  events: EventRecorder,
  known: KnownNode,
  node: Node,
  current: NodeCondition | undefined,
  marked: Judged | undefined,
  now: number,
): void {
  const name = node.metadata.name;
  const ready = current?.status ?? 'None';
  const before = known.ready;
  known.ready = ready;
  if (before === 'True' && ready !== 'True') {
    const message = marked?.marked
      ? heartbeatTimeoutMessage(name, now - marked.health.probeTimestamp, marked.gracePeriodMs)
      : `Node ${name} status is now: NodeNotReady (Ready ${ready}${current?.reason ? `, reason ${current.reason}` : ''})`;
    events.emit({ kind: 'Node', name, uid: node.metadata.uid }, 'Warning', 'NodeNotReady', message);
  } else if (before !== undefined && before !== 'True' && ready === 'True') {
    events.emit(
      { kind: 'Node', name, uid: node.metadata.uid },
      'Normal',
      'NodeReady',
      `Node ${name} status is now: NodeReady`,
    );
  }
}

/**
 * Warn once per lease (and again if its duration changes) when renewals cannot beat the grace
 * (docs/node-lifecycle.md#d13-upstream-defaults-and-safety-checks).
 */
export function announceLeaseProblems(
  events: EventRecorder,
  log: Logger,
  warned: Map<string, number>,
  node: Node,
  lease: Lease,
  config: Pick<NodeLifecycleConfig, 'nodeMonitorPeriodMs' | 'nodeMonitorGracePeriodMs'>,
): void {
  const name = node.metadata.name;
  const duration = lease.spec.leaseDurationSeconds;
  if (warned.get(name) === duration) return;
  if (!leaseRenewIntervalTooLong(lease, config.nodeMonitorPeriodMs, config.nodeMonitorGracePeriodMs)) {
    warned.delete(name);
    return;
  }
  warned.set(name, duration);
  const message =
    `Lease of node ${name} renews every ${duration / 4}s (leaseDurationSeconds/4); plus the ${config.nodeMonitorPeriodMs / 1000}s monitor period ` +
    `that is not shorter than the ${config.nodeMonitorGracePeriodMs / 1000}s grace period, so the node can look dead between two renewals: ` +
    'lower the agent lease duration or raise --node-monitor-grace-period';
  log.warn({ node: name, leaseDurationSeconds: duration }, message);
  events.emit({ kind: 'Node', name, uid: node.metadata.uid }, 'Warning', 'LeaseRenewIntervalTooLong', message);
}

/** ZoneStateChanged per changed zone (Initial → Normal is start-up noise and stays quiet); MasterDisruption. */
export function announceZones(events: EventRecorder, log: Logger, outcome: DisruptionOutcome): void {
  for (const c of outcome.changes) {
    if (c.from === 'Initial' && c.to === 'Normal') continue;
    events.emit(
      { kind: 'Zone', name: c.zone === '' ? 'default' : c.zone },
      c.to === 'Normal' ? 'Normal' : 'Warning',
      'ZoneStateChanged',
      zoneMessage(c),
    );
  }
  if (outcome.transition === 'enter') {
    const message =
      'Every zone is FullDisruption: entering master disruption mode; all NoExecute taints lifted and tainting stopped (the outage is most likely on the controller side)';
    log.warn(message);
    events.emit(CONTROLLER_OBJECT, 'Warning', 'MasterDisruption', message);
  } else if (outcome.transition === 'exit') {
    const message =
      'A zone is no longer FullDisruption: leaving master disruption mode; every node gets a fresh grace period and tainting resumes with drained rate limiters';
    log.warn(message);
    events.emit(CONTROLLER_OBJECT, 'Warning', 'MasterDisruption', message);
  }
}

function zoneMessage(c: ZoneChange): string {
  return `Zone ${c.zone === '' ? 'default' : c.zone} state changed from ${c.from} to ${c.to}; NoExecute taint rate is now ${c.rate}/s`;
}
