import type { ApiClient } from '../client/api-client.js';
import { readyCondition, zoneKeyOf, type Node } from '../core/node.js';
import { ViewWatch, type ViewChange, type ViewWatchDeps } from './view-watch.js';

export type ReadyStatus = 'True' | 'False' | 'Unknown' | 'None';

/** What the simulator keeps of a node: a few strings, not the object (50,000 Node objects cost ~200 MB). */
export interface NodeView {
  ready: ReadyStatus;
  zone: string;
  /** NoExecute taints as `key:NoExecute`, sorted. */
  noExecute: string[];
  /** The earliest `timeAdded` of those taints (wall ms), when they carry one. */
  noExecuteSince?: number;
}

export type NodeChange = ViewChange<NodeView>;

export function viewOf(node: Node): NodeView {
  const taints = (node.spec.taints ?? []).filter((t) => t.effect === 'NoExecute');
  const added = taints.map((t) => (t.timeAdded === undefined ? NaN : Date.parse(t.timeAdded))).filter((x) => x >= 0);
  return {
    ready: readyCondition(node)?.status ?? 'None',
    zone: zoneKeyOf(node.metadata.labels),
    noExecute: taints.map((t) => `${t.key}:${t.effect}`).sort(),
    ...(added.length > 0 ? { noExecuteSince: Math.min(...added) } : {}),
  };
}

export interface StateCounts {
  total: number;
  True: number;
  False: number;
  Unknown: number;
  None: number;
  /** Nodes carrying a NoExecute taint. */
  tainted: number;
}

export function countStates(views: Iterable<NodeView>): StateCounts {
  const c: StateCounts = { total: 0, True: 0, False: 0, Unknown: 0, None: 0, tainted: 0 };
  for (const v of views) {
    c.total++;
    c[v.ready]++;
    if (v.noExecute.length > 0) c.tainted++;
  }
  return c;
}

/** Nodes as the server sees them (see ViewWatch), with the counts the simulator reports. */
export class NodeWatch extends ViewWatch<Node, NodeView> {
  constructor(deps: { client: ApiClient } & ViewWatchDeps) {
    super('nodes', deps.client.nodes, viewOf, sameView, deps);
  }

  counts(): StateCounts {
    return countStates(this.values());
  }
}

function sameView(a: NodeView | undefined, b: NodeView | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.ready === b.ready && a.zone === b.zone && a.noExecute.join(',') === b.noExecute.join(',');
}
