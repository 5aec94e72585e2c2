import type { Lease } from '../../core/lease.js';
import { EXCLUDE_DISRUPTION_LABEL, readyCondition, zoneKeyOf, type Node, type NodeCondition } from '../../core/node.js';
import {
  monitorGraceOf,
  observedHeartbeat,
  observeNode,
  wouldMarkChange,
  type HealthTimings,
  type NodeHealth,
} from './node-health.js';

/**
 * Everything the controller keeps about one node it knows (upstream's `knownNodeSet` entry plus its
 * `nodeHealthMap` entry), plus what it derived from the node and lease it last judged, so that a node whose
 * cached objects did not change costs two identity comparisons per pass. Informer objects are read-only and
 * replaced on every change, and a resourceVersion names one content: "same object" or "same resourceVersion"
 * means "same derived data". Nothing a pass learns is kept when the pass is abandoned
 * (docs/node-lifecycle.md#d4-abandon-the-whole-pass): it is staged in the `pass*` fields and committed only once
 * the pass is known to go through. Staging allocates nothing for a renewed lease: a pass must not churn the heap
 * 50k objects at a time.
 */
export interface NodeRecord {
  readonly name: string;
  readonly uid: string;
  /** True once the record is in the controller's map (RegisteredNode emitted); false while staged. */
  known: boolean;
  /** Stamp of the last pass that listed the node, to find deleted nodes without building a Set per pass. */
  seen: number;
  /** Zone key and "counted in zone maths" (no exclude-disruption label) of the node at `labelsRv`. */
  zone: string;
  counted: boolean;
  labelsRv: string;
  /** Ready status after the last judged pass ('None' without a Ready condition); undefined before the first. */
  ready: string | undefined;
  /** The lease LeaseWarnings last checked, and its duration: its verdict only depends on the duration. */
  leaseChecked: Lease | undefined;
  leaseCheckedDuration: number | undefined;
  /** `nodeHealthMap` entry; undefined until the first committed judgement. Mutated only by commits. */
  health: NodeHealth | undefined;
  /** Memo: `health.status` is the status of `node` (also known by its resourceVersion, for caches that copy). */
  node: Node | undefined;
  nodeRv: string;
  /** Memo: the cached Lease object last observed (undefined: none was cached). */
  lease: Lease | undefined;
  /** `readyCondition` of `node`, and its status ('None' without one). */
  readyCond: NodeCondition | undefined;
  readyStatus: string;
  /** The node copy whose taint reconcile (Ready=True, outside master-disruption mode) had nothing to do. */
  nodeWithCleanTaints: Node | undefined;
  /** This pass: what changed ('none', a renewed or edited 'lease', or the 'node': a new health object). */
  passKind: 'none' | 'lease' | 'node';
  passProbe: number;
  passLease: Lease | undefined;
  passHealth: NodeHealth | undefined;
  /** This pass: the Ready condition judged (after a mark, the marked one) and its status; skipped after a failed write. */
  passCurrent: NodeCondition | undefined;
  passStatus: string;
  passSkipped: boolean;
}

export function newNodeRecord(node: Node): NodeRecord {
  return {
    name: node.metadata.name,
    uid: node.metadata.uid,
    known: false,
    seen: 0,
    zone: '',
    counted: true,
    labelsRv: '',
    ready: undefined,
    leaseChecked: undefined,
    leaseCheckedDuration: undefined,
    health: undefined,
    node: undefined,
    nodeRv: '',
    lease: undefined,
    readyCond: undefined,
    readyStatus: 'None',
    nodeWithCleanTaints: undefined,
    passKind: 'none',
    passProbe: 0,
    passLease: undefined,
    passHealth: undefined,
    passCurrent: undefined,
    passStatus: 'None',
    passSkipped: false,
  };
}

/**
 * Re-derives the zone key and the exclusion of `node` (call when its resourceVersion moved). `intern` returns
 * one string per zone, so the per-pass zone tally finds its entry by identity.
 */
export function deriveLabels(rec: NodeRecord, node: Node, intern: (zone: string) => string): void {
  const labels = node.metadata.labels;
  rec.zone = intern(zoneKeyOf(labels));
  rec.counted = labels === undefined || !Object.hasOwn(labels, EXCLUDE_DISRUPTION_LABEL);
  rec.labelsRv = node.metadata.resourceVersion;
}

/**
 * Steps 1–4 of `tryUpdateNodeHealth` from the caches, staged on the record: what `observeNode` would give,
 * computed only from what changed (nothing; the lease: `observeNode`'s lease rule; or the node: `observeNode`).
 * Returns true when the node is past its grace and a mark would change something: only those go through the
 * async write path.
 */
export function judgeStaged(
  rec: NodeRecord,
  node: Node,
  lease: Lease | undefined,
  now: number,
  timings: HealthTimings,
): boolean {
  const prev = rec.health;
  let probe: number;
  let ready: NodeCondition | undefined;
  rec.passSkipped = false;
  if (
    prev !== undefined &&
    (node === rec.node || (rec.nodeRv !== '' && node.metadata.resourceVersion === rec.nodeRv))
  ) {
    ready = rec.readyCond;
    rec.passStatus = rec.readyStatus;
    if (lease === rec.lease || lease === undefined) {
      rec.passKind = 'none';
      probe = prev.probeTimestamp;
    } else {
      // The same node, so the same Ready: only the lease can carry a heartbeat (the renewal rule:
      // docs/node-lifecycle.md#d1-judge-liveness-on-our-own-clock).
      rec.passKind = 'lease';
      rec.passLease = lease;
      probe = rec.passProbe = observedHeartbeat(ready, ready, prev.lease, lease) ? now : prev.probeTimestamp;
    }
  } else {
    const health = (rec.passHealth = observeNode(prev, node, lease, now, timings).health);
    rec.passKind = 'node';
    rec.passLease = lease;
    probe = health.probeTimestamp;
    ready = readyCondition(node);
    rec.passStatus = ready?.status ?? 'None';
  }
  rec.passCurrent = ready;
  // Past the grace with every condition already Unknown, the node's own Ready is what a mark would leave.
  const grace = ready === undefined ? timings.nodeStartupGracePeriodMs : monitorGraceOf(prev, timings);
  return now > probe + grace && wouldMarkChange(node);
}

/** The node goes through the write path: nothing staged is committed for it. */
export function unstage(rec: NodeRecord): void {
  rec.passKind = 'none';
  rec.passHealth = undefined;
  rec.passLease = undefined;
}

/** Commits what `judgeStaged` staged (the pass was not abandoned). */
export function commitStaged(rec: NodeRecord, node: Node): void {
  const kind = rec.passKind;
  if (kind === 'none') return;
  const health = rec.health;
  if (kind === 'lease' && health !== undefined) {
    health.probeTimestamp = rec.passProbe;
    health.lease = rec.passLease;
  } else {
    rec.health = rec.passHealth;
    rec.node = node;
    rec.nodeRv = node.metadata.resourceVersion;
    rec.readyCond = rec.passCurrent;
    rec.readyStatus = rec.passStatus;
  }
  rec.lease = rec.passLease;
  unstage(rec);
}

/** Commits the outcome of the write path: the memo is dropped, so the next pass observes the node afresh. */
export function commitWritten(rec: NodeRecord, health: NodeHealth, current: NodeCondition | undefined): void {
  rec.health = health;
  rec.node = undefined;
  rec.nodeRv = '';
  rec.lease = health.lease;
  rec.passCurrent = current;
  rec.passStatus = current?.status ?? 'None';
  unstage(rec);
}

/**
 * After a write of ours that left the Ready condition alone (a Suspect write), once the cache holds exactly what was
 * written (`cached`, at the written resourceVersion): the record lets go of the copy it judged, which would otherwise
 * stay alive beside the cache's until the next pass (docs/node-lifecycle.md#suspect-writes-in-chunks). The health
 * keeps `cached`'s status, the one the next pass would record; the memo is dropped, so the next pass observes the
 * node afresh, as the new resourceVersion makes it do anyway. Nothing is adopted unless `cached`'s Ready condition
 * says what the recorded one says, so no heartbeat can be hidden. Returns whether it adopted.
 */
export function adoptWrittenCopy(rec: NodeRecord, cached: Node): boolean {
  const health = rec.health;
  if (health === undefined) return false;
  const saved = health.status.conditions?.find((c) => c.type === 'Ready');
  const current = readyCondition(cached);
  if (
    saved?.status !== current?.status ||
    saved?.lastHeartbeatTime !== current?.lastHeartbeatTime ||
    saved?.lastTransitionTime !== current?.lastTransitionTime
  )
    return false;
  health.status = cached.status;
  if (health.detection !== undefined) health.detection.seenNode = undefined;
  rec.node = undefined;
  rec.nodeRv = '';
  rec.readyCond = undefined;
  rec.passCurrent = current;
  rec.nodeWithCleanTaints = undefined;
  return true;
}

/** Same node content as the one the record's labels were derived from (identity first: no read of the node). */
export function sameLabels(rec: NodeRecord, node: Node): boolean {
  return node === rec.node || node.metadata.resourceVersion === rec.labelsRv;
}
