import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { Node, NodeCondition } from '../../core/node.js';
import type { ZoneChange, DisruptionOutcome } from './disruption.js';
import { CONTROLLER_OBJECT, type EventRecorder } from './events.js';
import type { Membership } from './known-nodes.js';
import type { Judged } from './node-evaluator.js';
import { heartbeatTimeoutMessage, type HealthTimings } from './node-health.js';
import type { NodeRecord } from './node-record.js';
import { formatSeconds, timeOfDay, wallTimeOf } from './verdict-evidence.js';

/** What the announcements need of the controller's record of a node (see NodeRecord). */
export interface KnownNode {
  /** Ready status after the last judged pass; 'None' when the node had no Ready condition; undefined before. */
  ready: string | undefined;
}

/**
 * docs/node-lifecycle.md#d11-events: NodeNotReady (Warning) once per True → not-True transition, with the evidence
 * when the controller itself marked the node (`marked`: the judgement of this pass's Unknown write); NodeReady when
 * Ready comes back True. The first judgement of a node (e.g. after a restart) announces nothing. Returns the Ready
 * status the node had before, when it came back Ready (the caller's verdict), else undefined.
 */
export function announceReadyChange(
  events: EventRecorder,
  known: KnownNode,
  node: Node,
  current: NodeCondition | undefined,
  marked: Judged | undefined,
  clock: Clock,
): string | undefined {
  const name = node.metadata.name;
  const ready = current?.status ?? 'None';
  const before = known.ready;
  known.ready = ready;
  if (before === 'True' && ready !== 'True') {
    const message = marked?.marked
      ? markedMessage(name, marked, clock)
      : `Node ${name} status is now: NodeNotReady (Ready ${ready}${current?.reason ? `, reason ${current.reason}` : ''})`;
    events.emit({ kind: 'Node', name, uid: node.metadata.uid }, 'Warning', 'NodeNotReady', message);
  } else if (before !== undefined && before !== 'True' && ready === 'True') {
    events.emit(
      { kind: 'Node', name, uid: node.metadata.uid },
      'Normal',
      'NodeReady',
      `Node ${name} status is now: NodeReady`,
    );
    return before;
  }
  return undefined;
}

/**
 * The heartbeat-timeout message with its evidence: `Node n1 heartbeat timeout: no lease renewal or status heartbeat
 * observed for 52s (grace 50s); last renewal observed at 12:00:08Z on the controller's clock, lease resourceVersion
 * 41 (confirmed live)`.
 */
export function markedMessage(name: string, marked: Judged, clock: Clock): string {
  const probe = marked.health.probeTimestamp;
  const rv = marked.health.lease?.metadata.resourceVersion;
  const lease = rv ? `, lease resourceVersion ${rv}${marked.liveLeaseRv === rv ? ' (confirmed live)' : ''}` : '';
  return (
    heartbeatTimeoutMessage(name, clock.monotonic() - probe, marked.gracePeriodMs) +
    `; last renewal observed at ${timeOfDay(wallTimeOf(probe, clock))} on the controller's clock${lease}`
  );
}

/** RegisteredNode for every node the controller learnt of in a pass, RemovingNode for every node it forgot. */
export function announceMembership(events: EventRecorder, changes: Membership): void {
  const emit = ({ name, uid }: { name: string; uid: string }, reason: string, what: string): void =>
    events.emit({ kind: 'Node', name, uid }, 'Normal', reason, `Node ${name} event: ${what}`);
  for (const rec of changes.added) emit(rec, 'RegisteredNode', `Registered Node ${rec.name} in Controller`);
  for (const rec of changes.removed) emit(rec, 'RemovingNode', `Removing Node ${rec.name} from Controller`);
}

/**
 * LeaseCacheStale: check B saw a live lease newer than the cached one, so no node is judged for now; with how long
 * the node looked silent from the cache, and its grace.
 */
export function announceStaleLeaseCache(
  events: EventRecorder,
  rec: Pick<NodeRecord, 'uid' | 'health' | 'readyStatus'> | undefined,
  sc: { node: string; stale?: { cachedRv: string; liveRv: string } },
  timings: HealthTimings,
  now: number,
): void {
  const { node: name, stale } = sc;
  if (stale === undefined) return;
  const uid = rec?.uid;
  const graceMs = rec?.readyStatus === 'None' ? timings.nodeStartupGracePeriodMs : timings.nodeMonitorGracePeriodMs;
  const looked = rec?.health
    ? ` (from the cache it looked silent for ${formatSeconds(now - rec.health.probeTimestamp)}, grace ${formatSeconds(graceMs)})`
    : '';
  events.emit(
    { kind: 'Node', name, ...(uid ? { uid } : {}) },
    'Warning',
    'LeaseCacheStale',
    `Lease cache is stale for node ${name}${looked}: cached resourceVersion ${stale.cachedRv || '(none)'}, live resourceVersion ${stale.liveRv}; no node is judged until the cache catches up`,
  );
}

/** ControllerPaused: the controller itself did not run for `gapMs` (PauseDetector), so every node gets a fresh grace. */
export function announcePause(events: EventRecorder, log: Logger, gapMs: number): void {
  const secs = Math.floor(gapMs / 1000);
  log.warn({ gapMs }, 'node lifecycle controller was paused; giving every node a fresh grace period');
  events.emit(
    CONTROLLER_OBJECT,
    'Warning',
    'ControllerPaused',
    `Node lifecycle controller did not run for ${secs}s (more than one monitor period plus the grace period); every node gets a fresh grace period instead of being judged on silence the controller did not watch`,
  );
}

/** ZoneStateChanged per changed zone (Initial → Normal is start-up noise and stays quiet); MasterDisruption. */
export function announceZones(events: EventRecorder, log: Logger, outcome: DisruptionOutcome): void {
  for (const c of outcome.changes) {
    if (c.from === 'Initial' && c.to === 'Normal') continue;
    const count = outcome.counts.find((x) => x.zone === c.zone);
    events.emit(
      { kind: 'Zone', name: c.zone === '' ? 'default' : c.zone },
      c.to === 'Normal' ? 'Normal' : 'Warning',
      'ZoneStateChanged',
      zoneMessage(c, count),
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

function zoneMessage(c: ZoneChange, count: { nodes: number; notReady: number } | undefined): string {
  const counts = count ? ` (${count.notReady} of ${count.nodes} nodes not Ready)` : '';
  return `Zone ${c.zone === '' ? 'default' : c.zone} state changed from ${c.from} to ${c.to}${counts}; NoExecute taint rate is now ${c.rate}/s`;
}
