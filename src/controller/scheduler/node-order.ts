/**
 * Which nodes the scheduler looks at for one pod, and in what order (docs/workloads.md#sampling).
 *
 * kube-scheduler stops filtering once it has found `numFeasibleNodesToFind` feasible nodes and starts the next pod
 * where the last search stopped, walking a node list that alternates between zones (its NodeTree), so that every
 * sample spans every zone and every node gets its turn.
 */

/** kube-scheduler's minFeasibleNodesToFind: below this many nodes, every node is evaluated. */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** kube-scheduler's minFeasibleNodesPercentageToFind: the adaptive percentage never goes below this. */
export const MIN_FEASIBLE_NODES_PERCENTAGE = 5;

/**
 * kube-scheduler's numFeasibleNodesToFind. `percentage` 0 is adaptive: 50 % minus one point per 125 nodes, at
 * least 5 % (so 10,000 nodes → 5 % → 500 nodes); a result below 100 becomes 100; 100 % or more means every node.
 */
export function numFeasibleNodesToFind(numAllNodes: number, percentage = 0): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND || percentage >= 100) return numAllNodes;
  let p = percentage;
  if (p <= 0) p = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE, 50 - Math.trunc(numAllNodes / 125));
  const n = Math.trunc((numAllNodes * p) / 100);
  return n < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : n;
}

/**
 * kube-scheduler's NodeTree order: zones in sorted order, nodes in name order within a zone, taken one from each
 * zone in turn (a1, b1, c1, a2, b2, c2, a3, …) until every zone is exhausted.
 */
export function zoneInterleaved<T extends { name: string; zone: string }>(nodes: Iterable<T>): T[] {
  const byZone = new Map<string, T[]>();
  for (const n of nodes) {
    let list = byZone.get(n.zone);
    if (list === undefined) byZone.set(n.zone, (list = []));
    list.push(n);
  }
  const zones = [...byZone.keys()].sort().map((z) => {
    const list = byZone.get(z) as T[];
    return list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  });
  const total = zones.reduce((sum, l) => sum + l.length, 0);
  const out: T[] = [];
  for (let i = 0; out.length < total; i++) {
    for (const list of zones) if (i < list.length) out.push(list[i] as T);
  }
  return out;
}
