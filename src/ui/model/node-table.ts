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

type SortValue = number | string | undefined;

/** The value a row sorts by; computed once per row per sort, never inside the comparator. */
function sortValue(key: SortKey, heartbeat: (row: NodeRow) => number | undefined): (row: NodeRow) => SortValue {
  switch (key) {
    case 'name':
      return (r) => r.name;
    case 'status':
      return stateRank;
    case 'zone':
      return (r) => r.zone;
    case 'taints':
      return (r) => r.taints.length;
    // Ascending heartbeat means the longest silence first: that is the age a person sorts by.
    case 'heartbeat':
      return heartbeat;
    case 'pods':
      return (r) => r.pods;
    case 'cpu':
      return (r) => r.cpuCores;
    case 'memory':
      return (r) => r.memoryBytes;
  }
}

/** `sign` is -1 for descending; a missing value sorts last in either direction. */
function compareValues(x: SortValue, y: SortValue, sign: number): number {
  if (x === y) return 0;
  if (x === undefined) return 1;
  if (y === undefined) return -1;
  return sign * (x < y ? -1 : 1);
}

/**
 * The rows the table shows, filtered and sorted, the name breaking ties. With 10,000 nodes it runs on every frame
 * that brought a change (bench/dashboard-frame.ts measures it), so rows come precomputed (rowOf), sort values are
 * computed once per row, and callers pass rows in name order: the default sort then finds one sorted run.
 */
export function selectRows(
  rows: Iterable<NodeRow>,
  query: TableQuery,
  heartbeat: (row: NodeRow) => number | undefined,
): NodeRow[] {
  const text = query.text.trim().toLowerCase();
  const value = sortValue(query.sort, heartbeat);
  const kept: Array<{ row: NodeRow; value: SortValue }> = [];
  for (const row of rows) {
    if (query.zone !== 'all' && row.zone !== query.zone) continue;
    if (!matchesState(row, query.state)) continue;
    if (text !== '' && !row.haystack.includes(text)) continue;
    kept.push({ row, value: value(row) });
  }
  const sign = query.descending ? -1 : 1;
  kept.sort((a, b) => compareValues(a.value, b.value, sign) || compareValues(a.row.name, b.row.name, 1));
  return kept.map((k) => k.row);
}
