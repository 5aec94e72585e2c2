/** kube-scheduler's ErrNoNodesAvailable: the message when the cluster has no node at all. */
export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

/**
 * kube-scheduler's FitError message: `0/<all nodes> nodes are available: ` and, for each reason, `<count> <reason>`,
 * the entries sorted as strings (count first, as upstream sorts them) and joined by `, `, then a full stop. E.g.
 * `0/12 nodes are available: 3 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 9 node(s) were
 * unschedulable.`
 */
export function failedSchedulingMessage(numAllNodes: number, reasons: ReadonlyMap<string, number>): string {
  if (numAllNodes === 0) return NO_NODES_AVAILABLE;
  const parts = [...reasons].map(([reason, count]) => `${count} ${reason}`).sort();
  return `0/${numAllNodes} nodes are available: ${parts.join(', ')}.`;
}
