import { untoleratedPreferNoSchedule, type PodRequirements } from './filters.js';
import type { NodeInfo } from './node-info.js';

/**
 * How much the scheduler wants a feasible node for a pod: compared field by field, in this order, lower wins
 * (docs/workloads.md#scores):
 * 1. `suspect`: a node whose condition `Suspect=True` says the node lifecycle controller doubts it;
 * 2. `preferNoSchedule`: PreferNoSchedule taints the pod does not tolerate (kube-scheduler's TaintToleration score);
 * 3. `zonePods`: the owner's pods already in the node's zone (spread across zones, PodTopologySpread's zone term);
 * 4. `nodePods`: the owner's pods already on the node (then across nodes);
 * 5. `load`: the node's pods as a fraction of its `allocatable.pods` (least loaded, NodeResourcesFit's LeastAllocated).
 * Ties keep the node met first, which the rotating start of each search makes fair.
 */
export interface NodeScore {
  suspect: number;
  preferNoSchedule: number;
  zonePods: number;
  nodePods: number;
  load: number;
}

export function emptyScore(): NodeScore {
  return { suspect: 0, preferNoSchedule: 0, zonePods: 0, nodePods: 0, load: 0 };
}

/** Fills `out` (reused, so scoring thousands of nodes allocates nothing) with the score of `info` for the pod. */
export function scoreNode(
  req: PodRequirements,
  info: NodeInfo,
  ownerZones: ReadonlyMap<string, number> | undefined,
  out: NodeScore,
): NodeScore {
  out.suspect = info.suspect ? 1 : 0;
  out.preferNoSchedule = untoleratedPreferNoSchedule(req, info);
  out.zonePods = req.owner === undefined ? 0 : (ownerZones?.get(info.zone) ?? 0);
  out.nodePods = req.owner === undefined ? 0 : (info.usage.owners?.get(req.owner) ?? 0);
  out.load = info.maxPods > 0 ? info.usage.pods / info.maxPods : 1;
  return out;
}

/** Negative when `a` is the better node, positive when `b` is, 0 when they are equal. */
export function compareScores(a: NodeScore, b: NodeScore): number {
  return (
    a.suspect - b.suspect ||
    a.preferNoSchedule - b.preferNoSchedule ||
    a.zonePods - b.zonePods ||
    a.nodePods - b.nodePods ||
    a.load - b.load
  );
}

/**
 * The best node so far of one search, kept field by field: a candidate is compared with it one field at a time, in
 * `compareScores` order, and later fields are computed only when the earlier ones tie. It picks exactly the node
 * `compareScores` would pick (test/controller/scheduler/scores.test.ts checks that), at a fraction of the cost.
 */
export class BestNode {
  info: NodeInfo | undefined;
  readonly #score = emptyScore();

  reset(): void {
    this.info = undefined;
  }

  offer(req: PodRequirements, info: NodeInfo, ownerZones: ReadonlyMap<string, number> | undefined): void {
    const best = this.#score;
    if (this.info === undefined) {
      this.#take(req, info, ownerZones);
      return;
    }
    const suspect = info.suspect ? 1 : 0;
    if (suspect !== best.suspect) {
      if (suspect < best.suspect) this.#take(req, info, ownerZones);
      return;
    }
    const prefer = untoleratedPreferNoSchedule(req, info);
    if (prefer !== best.preferNoSchedule) {
      if (prefer < best.preferNoSchedule) this.#take(req, info, ownerZones);
      return;
    }
    if (req.owner !== undefined) {
      const zonePods = ownerZones?.get(info.zone) ?? 0;
      if (zonePods !== best.zonePods) {
        if (zonePods < best.zonePods) this.#take(req, info, ownerZones);
        return;
      }
      const nodePods = info.usage.owners?.get(req.owner) ?? 0;
      if (nodePods !== best.nodePods) {
        if (nodePods < best.nodePods) this.#take(req, info, ownerZones);
        return;
      }
    }
    const load = info.maxPods > 0 ? info.usage.pods / info.maxPods : 1;
    if (load < best.load) this.#take(req, info, ownerZones);
  }

  #take(req: PodRequirements, info: NodeInfo, ownerZones: ReadonlyMap<string, number> | undefined): void {
    this.info = info;
    scoreNode(req, info, ownerZones, this.#score);
  }
}
