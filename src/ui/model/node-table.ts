import type { NodeRow, NodeState } from './node-row.js';

export const SORT_KEYS = ['name', 'status', 'zone', 'taints', 'heartbeat', 'pods', 'cpu', 'memory'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** What the status filter offers besides one NodeState. */
export type StateFilter = 'all' | 'problems' | 'Suspect' | 'tainted' | NodeState;

export interface TableQuery {
  /** Substring of the name, zone or a taint; case-insensitive. */
  text: string;
  state: StateFilter;
  /** A Zone object name, or `all`. */
  zone: string;
  sort: SortKey;
  descending: boolean;
}

export const DEFAULT_QUERY: TableQuery = { text: '', state: 'all', zone: 'all', sort: 'name', descending: false };

/** Ascending status order puts the nodes that need attention first. */
const STATE_RANK: Readonly<Record<NodeState, number>> = { Unknown: 0, NotReady: 1, NoStatus: 2, Ready: 4 };

function stateRank(row: NodeRow): number {
  return row.state === 'Ready' && row.suspect ? 3 : STATE_RANK[row.state];
}

function matchesState(row: NodeRow, state: StateFilter): boolean {
  switch (state) {
    case 'all':
      return true;
    case 'problems':
      return row.state !== 'Ready' || row.suspect || row.taints.length > 0;
    case 'Suspect':
      return row.suspect;
    case 'tainted':
      return row.taints.length > 0;
    default:
      return row.state === state;
  }
}

/** `sign` is -1 for descending; numbers compare as numbers with missing values last in either direction. */
function compareBy(
  key: SortKey,
  sign: number,
  heartbeat: (row: NodeRow) => number | undefined,
): (a: NodeRow, b: NodeRow) => number {
  const num = (f: (r: NodeRow) => number | undefined) => (a: NodeRow, b: NodeRow) => {
    const x = f(a);
    const y = f(b);
    if (x === y) return 0;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    return sign * (x - y);
  };
  const str = (f: (r: NodeRow) => string) => (a: NodeRow, b: NodeRow) => {
    const x = f(a);
    const y = f(b);
    return sign * (x < y ? -1 : x > y ? 1 : 0);
  };
  switch (key) {
    case 'name':
      return str((r) => r.name);
    case 'status':
      return num(stateRank);
    case 'zone':
      return str((r) => r.zone);
    case 'taints':
      return num((r) => r.taints.length);
    // Ascending heartbeat means the longest silence first: that is the age a person sorts by.
    case 'heartbeat':
      return num((r) => heartbeat(r));
    case 'pods':
      return num((r) => r.pods);
    case 'cpu':
      return num((r) => r.cpuCores);
    case 'memory':
      return num((r) => r.memoryBytes);
  }
}

/**
 * The rows the table shows, filtered and sorted. Pure and allocation-light: with 10,000 nodes it runs on
 * every frame that brought a change (bench/dashboard-frame.ts measures it), so rows come precomputed (rowOf).
 */
export function selectRows(
  rows: Iterable<NodeRow>,
  query: TableQuery,
  heartbeat: (row: NodeRow) => number | undefined,
): NodeRow[] {
  const text = query.text.trim().toLowerCase();
  const out: NodeRow[] = [];
  for (const row of rows) {
    if (query.zone !== 'all' && row.zone !== query.zone) continue;
    if (!matchesState(row, query.state)) continue;
    if (text !== '' && !row.haystack.includes(text)) continue;
    out.push(row);
  }
  const primary = compareBy(query.sort, query.descending ? -1 : 1, heartbeat);
  const byName = compareBy('name', 1, heartbeat);
  out.sort((a, b) => primary(a, b) || byName(a, b));
  return out;
}
