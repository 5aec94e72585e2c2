import { formatTime, type Clock } from '../../core/clock.js';
import { zoneObjectName } from '../../core/node.js';
import type { VerdictEvidence } from '../../core/verdict.js';
import type { NodeHealth } from './node-health.js';
import type { ZoneState } from './zone-state.js';

/**
 * What the controller decided about a node (docs/verdicts.md#actions). Detectors that come later add their own
 * actions here (Suspect, Flapping, Partitioned), with their evidence in `detector`, `flapping` or `witnesses`.
 */
export type VerdictAction =
  | 'MarkUnknown'
  | 'QueueTaint'
  | 'Taint'
  | 'SwapTaint'
  | 'RemoveTaint'
  | 'Hold'
  | 'Ready'
  | 'Suspect'
  | 'Unsuspect'
  | 'Flapping'
  | 'Unflapping'
  // Peer witnesses weighed a silent node (docs/witnesses.md#the-verdict).
  | 'Partitioned';

/** A zone as the controller counted it in its last pass that went through. */
export interface ZoneFacts {
  /** The zone key (`""` for nodes without zone labels). */
  zone: string;
  state: ZoneState;
  nodes: number;
  notReady: number;
  rate: number;
}

/** A node's place in its zone's NoExecute queue: 1-based position, and the earliest taint (monotonic ms). */
export interface QueueFacts {
  position: number;
  length: number;
  etaMono: number | undefined;
}

const secs = (ms: number): number => Math.round(ms) / 1000;

/** `12s`, `1m30s`: a duration as people read it in a message. */
export function formatSeconds(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 120 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60 === 0 ? '' : `${s % 60}s`}`;
}

/** A controller monotonic time as wall time, from the clock's two readings now (docs/verdicts.md#clocks). */
export function wallTimeOf(mono: number, clock: Clock): string {
  return formatTime(clock.now() - (clock.monotonic() - mono));
}

/** `12:03:10Z`: the time of day of an RFC 3339 time, for messages (the evidence keeps the full time). */
export function timeOfDay(rfc3339: string): string {
  return `${rfc3339.slice(11, 19)}Z`;
}

/**
 * The silence evidence: when the controller last observed a renewal (its monotonic `probeTimestamp`, shown as wall
 * time), for how long the node has been silent since, the grace it is judged against, and the lease it recorded.
 */
export function silenceEvidence(
  health: NodeHealth,
  graceMs: number,
  clock: Clock,
  lease?: { cachedRv?: string | undefined; liveRv?: string | undefined },
): Pick<VerdictEvidence, 'lastRenewalObservedAt' | 'silentForSeconds' | 'graceSeconds' | 'lease'> {
  const recorded = health.lease;
  const cachedRv = lease?.cachedRv ?? recorded?.metadata.resourceVersion;
  const liveRv = lease?.liveRv;
  return {
    lastRenewalObservedAt: wallTimeOf(health.probeTimestamp, clock),
    silentForSeconds: secs(Math.max(0, clock.monotonic() - health.probeTimestamp)),
    graceSeconds: secs(graceMs),
    lease: {
      ...(recorded ? { renewTime: recorded.spec.renewTime } : {}),
      ...(cachedRv ? { cachedResourceVersion: cachedRv } : {}),
      ...(liveRv ? { liveResourceVersion: liveRv } : {}),
    },
  };
}

/** The zone evidence, with the node's queue position and earliest taint when it waits in the queue. */
export function zoneEvidence(z: ZoneFacts, q: QueueFacts | undefined, clock: Clock): VerdictEvidence['zone'] {
  return {
    name: zoneObjectName(z.zone),
    state: z.state,
    nodes: z.nodes,
    notReady: z.notReady,
    evictionRate: z.rate,
    ...(q ? { queuePosition: q.position } : {}),
    ...(q?.etaMono !== undefined ? { earliestTaintAt: wallTimeOf(q.etaMono, clock) } : {}),
  };
}

/**
 * `next` of a node that waits in its zone's NoExecute queue: when the taint comes if nothing changes, or what holds
 * it (master disruption, a zone rate of 0).
 */
export function queuedNext(
  taint: string,
  z: ZoneFacts,
  q: QueueFacts | undefined,
  master: boolean,
  clock: Clock,
): string {
  const zone = zoneObjectName(z.zone);
  if (master)
    return `no ${taint} while every zone is FullDisruption (master disruption); when a zone recovers every node gets a fresh grace and tainting resumes`;
  if (!(z.rate > 0))
    return z.state === 'PartialDisruption'
      ? `no ${taint} while zone ${zone} is PartialDisruption at rate 0 (a zone of at most --large-cluster-size-threshold nodes stops tainting when partially disrupted)`
      : `no ${taint} while zone ${zone} has rate 0 (--node-eviction-rate)`;
  if (q === undefined || q.etaMono === undefined) return `taint ${taint} when the zone queue of ${zone} reaches it`;
  return `taint ${taint} at about ${timeOfDay(wallTimeOf(q.etaMono, clock))} (queue position ${q.position} of ${q.length} in zone ${zone} at ${z.rate}/s)`;
}

/** `next` of a node the breaker held: the mark waits for the lease cache. */
export function heldByBreakerNext(pendingRv: string | undefined): string {
  const rv = pendingRv ? ` (to resourceVersion ${pendingRv})` : '';
  return `mark it Unknown at the first pass after the lease cache catches up${rv}, if it is still silent then; nothing is marked or tainted meanwhile`;
}

/** `next` of a Ready node: how long it may stay silent. */
export function readyNext(graceMs: number, carriesNoExecute: boolean): string {
  const lift = carriesNoExecute ? 'lift its NoExecute taint in this pass; then ' : '';
  return `${lift}nothing while it renews; marked Unknown after ${formatSeconds(graceMs)} of silence`;
}
