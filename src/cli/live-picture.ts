import { formatTime, parseTime } from '../core/clock.js';
import type { Lease } from '../core/lease.js';
import { readyCondition, type Node } from '../core/node.js';
import type { Verdict } from '../core/verdict.js';
import {
  ANNOTATION_CIRCUIT_BREAKER,
  ANNOTATION_MASTER_DISRUPTION,
  ANNOTATION_SETTINGS,
  ANNOTATION_TAINT_QUEUE,
  parseJsonAnnotation,
  type NodeLifecycleSettings,
  type TaintQueueNote,
} from '../core/zone-annotations.js';
import type { Zone } from '../core/zone.js';
import { decidedAt } from '../core/verdict-format.js';

const NO_EXECUTE_KEYS = ['node.kubernetes.io/unreachable', 'node.kubernetes.io/not-ready'];

/** How long the node has been silent, as far as sheepctl can know (docs/verdicts.md#live-picture). */
export interface SilencePicture {
  /**
   * `controller`: the newest verdict's evidence (the controller's own clock) and the lease has not changed since;
   * `lease`: the lease's renewTime, written by the agent's clock.
   */
  source: 'controller' | 'lease';
  lastRenewalAt: string;
  silentForSeconds: number;
  graceSeconds?: number;
  /** When the grace runs out (ran out) if nothing is renewed, and in how many seconds (negative: past it). */
  unknownAt?: string;
  unknownInSeconds?: number;
  /** Up to how much later the controller's own deadline can be (lease source: one monitor period). */
  slackSeconds?: number;
}

export interface QueuePicture {
  zone: string;
  /** 1-based; undefined when the node is beyond the head the Zone object shows. */
  position?: number;
  length: number;
  rate: number;
  taintAt?: string;
  /** `zone`: the Zone object's queue note (the controller's last pass); `verdict`: the newest verdict's evidence. */
  source: 'zone' | 'verdict';
}

export interface HoldPicture {
  kind: 'LeaseCircuitBreaker' | 'MasterDisruption' | 'ZoneRateZero';
  reason: string;
  waitsFor: string;
}

export interface LivePicture {
  at: string;
  /** The Ready condition's status, `None` without one, and since when. */
  ready: string;
  readySince?: string;
  silence?: SilencePicture;
  noExecute?: { taint: string; addedAt?: string };
  queue?: QueuePicture;
  hold?: HoldPicture;
  zone?: { name: string; state: string; nodes: number; notReady: number; evictionRate: number };
}

export interface LiveInput {
  node: Node;
  lease: Lease | undefined;
  /** The node's Zone object, and every Zone object (the breaker and master disruption hold the whole controller). */
  zone: Zone | undefined;
  zones: readonly Zone[];
  /** The node's live (not dry-run) verdicts. */
  verdicts: readonly Verdict[];
  now: number;
}

const secondsBetween = (from: number, to: number): number => Math.round((to - from) / 100) / 10;

function newest(vs: readonly Verdict[]): Verdict | undefined {
  let best: Verdict | undefined;
  for (const v of vs) if (!v.dryRun && (best === undefined || decidedAt(v) >= decidedAt(best))) best = v;
  return best;
}

/**
 * The live picture of a node, computed now from the node, its lease, its zone and the controller's newest verdict.
 * sheepctl cannot read the controller's clock: while the lease is the one the newest verdict recorded, the
 * verdict's "last renewal observed" (the controller's clock, shown as wall time) is the truth; once the lease moved,
 * its renewTime (the agent's clock) is, and the controller's deadline can be up to one monitor period later.
 */
export function livePicture(input: LiveInput): LivePicture {
  const { node, lease, zone, now } = input;
  const ready = readyCondition(node);
  const settings = parseJsonAnnotation<NodeLifecycleSettings>(zone?.metadata.annotations?.[ANNOTATION_SETTINGS]);
  const last = newest(input.verdicts);
  const picture: LivePicture = {
    at: formatTime(now),
    ready: ready?.status ?? 'None',
    ...(ready?.lastTransitionTime ? { readySince: ready.lastTransitionTime } : {}),
  };
  const grace =
    (ready === undefined ? settings?.nodeStartupGracePeriodSeconds : settings?.nodeMonitorGracePeriodSeconds) ??
    last?.evidence.graceSeconds;
  const silence = silenceOf(lease, last, grace, settings, now);
  if (silence) picture.silence = silence;
  const taint = node.spec.taints?.find((t) => t.effect === 'NoExecute' && NO_EXECUTE_KEYS.includes(t.key));
  if (taint)
    picture.noExecute = { taint: `${taint.key}:NoExecute`, ...(taint.timeAdded ? { addedAt: taint.timeAdded } : {}) };
  if (zone) {
    const s = zone.status;
    picture.zone = {
      name: zone.metadata.name,
      state: s.state,
      nodes: s.nodes,
      notReady: s.notReady,
      evictionRate: s.evictionRate,
    };
  }
  const hold = holdOf(input.zones, zone, ready?.status, taint !== undefined);
  if (hold) picture.hold = hold;
  if (ready !== undefined && ready.status !== 'True' && taint === undefined) {
    const queue = queueOf(node.metadata.name, zone, last);
    if (queue) picture.queue = queue;
  }
  return picture;
}

function silenceOf(
  lease: Lease | undefined,
  last: Verdict | undefined,
  grace: number | undefined,
  settings: NodeLifecycleSettings | undefined,
  now: number,
): SilencePicture | undefined {
  const e = last?.evidence;
  const fromVerdict =
    e?.lastRenewalObservedAt !== undefined &&
    lease !== undefined &&
    e.lease?.cachedResourceVersion === lease.metadata.resourceVersion;
  const at = fromVerdict ? e.lastRenewalObservedAt : lease?.spec.renewTime;
  if (at === undefined || Number.isNaN(parseTime(at))) return undefined;
  const t = parseTime(at);
  const out: SilencePicture = {
    source: fromVerdict ? 'controller' : 'lease',
    lastRenewalAt: at as string,
    silentForSeconds: Math.max(0, secondsBetween(t, now)),
  };
  if (grace !== undefined) {
    out.graceSeconds = grace;
    out.unknownAt = formatTime(t + grace * 1000);
    out.unknownInSeconds = secondsBetween(now, t + grace * 1000);
  }
  if (!fromVerdict && settings) out.slackSeconds = settings.nodeMonitorPeriodSeconds;
  return out;
}

function holdOf(
  zones: readonly Zone[],
  zone: Zone | undefined,
  ready: string | undefined,
  tainted: boolean,
): HoldPicture | undefined {
  const note = (key: string): string | undefined =>
    [...zones]
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
      .map((z) => z.metadata.annotations?.[key])
      .find((v) => v !== undefined && v !== '');
  const breaker = note(ANNOTATION_CIRCUIT_BREAKER);
  if (breaker !== undefined)
    return {
      kind: 'LeaseCircuitBreaker',
      reason: breaker.replace(/^holding: /, ''),
      waitsFor:
        'the lease cache to catch up with what the controller read live; then a node still silent is marked Unknown',
    };
  if (note(ANNOTATION_MASTER_DISRUPTION) === 'true')
    return {
      kind: 'MasterDisruption',
      reason: 'every zone is FullDisruption, so the controller assumes its own view is broken',
      waitsFor: 'any zone to recover; then every node gets a fresh grace and tainting resumes, drained',
    };
  if (zone && ready !== undefined && ready !== 'True' && !tainted && !(zone.status.evictionRate > 0))
    return {
      kind: 'ZoneRateZero',
      reason: `zone ${zone.metadata.name} is ${zone.status.state} at rate 0`,
      waitsFor: 'the zone to leave PartialDisruption (or grow past --large-cluster-size-threshold)',
    };
  return undefined;
}

/**
 * The node's place in its zone's NoExecute queue: from the Zone object's queue note when the controller writes
 * notes (it does whenever it writes its settings; no note then means an empty queue), else from the newest verdict.
 */
function queueOf(name: string, zone: Zone | undefined, last: Verdict | undefined): QueuePicture | undefined {
  const annotations = zone?.metadata.annotations;
  const note = parseJsonAnnotation<TaintQueueNote>(annotations?.[ANNOTATION_TAINT_QUEUE]);
  const rate = zone?.status.evictionRate ?? last?.evidence.zone?.evictionRate ?? 0;
  const zoneName = zone?.metadata.name ?? last?.evidence.zone?.name ?? '';
  if (annotations?.[ANNOTATION_SETTINGS] !== undefined) {
    if (note === undefined || !Array.isArray(note.next)) return undefined;
    const i = note.next.findIndex((x) => x.node === name);
    const at = i >= 0 ? note.next[i]?.at : undefined;
    if (i >= 0 || note.length > note.next.length)
      return {
        zone: zoneName,
        ...(i >= 0 ? { position: i + 1 } : {}),
        length: note.length,
        rate,
        ...(at ? { taintAt: at } : {}),
        source: 'zone',
      };
    return undefined;
  }
  const z = last?.evidence.zone;
  if (z?.queuePosition === undefined) return undefined;
  return {
    zone: zoneName,
    position: z.queuePosition,
    length: z.queuePosition,
    rate,
    ...(z.earliestTaintAt ? { taintAt: z.earliestTaintAt } : {}),
    source: 'verdict',
  };
}
