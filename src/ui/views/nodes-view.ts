import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { humanDuration } from '../../cli/age.js';
import type { Node } from '../../core/node.js';
import { heartbeatOf, rowOf, type NodeRow } from '../model/node-row.js';
import { DEFAULT_QUERY, selectRows, type SortKey, type StateFilter, type TableQuery } from '../model/node-table.js';
import { hrefOf } from '../model/route.js';
import type { Stores } from '../store/stores.js';
import { NodeStatusBadges } from './badges.js';
import { useNow, useStore, useTitle } from './hooks.js';
import { Spacer, useTableWindow } from './table-window.js';

function nodeRow(node: Node | undefined): NodeRow[] {
  return node === undefined ? [] : [rowOf(node)];
}

const COLUMNS: ReadonlyArray<{ key: SortKey; label: string }> = [
  { key: 'name', label: 'Name' },
  { key: 'status', label: 'Status' },
  { key: 'zone', label: 'Zone' },
  { key: 'taints', label: 'Taints' },
  { key: 'heartbeat', label: 'Last heartbeat' },
  { key: 'pods', label: 'Pods' },
  { key: 'cpu', label: 'CPU' },
  { key: 'memory', label: 'Memory' },
];

const STATE_OPTIONS: ReadonlyArray<{ value: StateFilter; label: string }> = [
  { value: 'all', label: 'All' },
  { value: 'problems', label: 'Needs attention' },
  { value: 'Ready', label: 'Ready' },
  { value: 'NotReady', label: 'NotReady' },
  { value: 'Unknown', label: 'Unknown' },
  { value: 'Suspect', label: 'Suspect' },
  { value: 'tainted', label: 'Tainted' },
  { value: 'NoStatus', label: 'No status' },
];

/** The controller's taints are long; the table shows `unreachable:NoExecute`, the full text is in the tooltip. */
function shortTaint(t: string): string {
  return t.replace(/^node\.kubernetes\.io\//, '');
}

function SortHeader(props: { col: SortKey; label: string; query: TableQuery; onSort: (k: SortKey) => void }): VNode {
  const active = props.query.sort === props.col;
  const dir = props.query.descending ? 'descending' : 'ascending';
  return html`<th class=${`col-${props.col}`} scope="col" aria-sort=${active ? dir : 'none'}>
    <button type="button" onClick=${() => props.onSort(props.col)}>
      ${props.label}${active ? html`<span aria-hidden="true">${props.query.descending ? ' ▼' : ' ▲'}</span>` : null}
    </button>
  </th>`;
}

function Row(props: { row: NodeRow; index: number; heartbeat: number | undefined; now: number }): VNode {
  const { row, heartbeat, now } = props;
  const pods = row.pods === undefined ? '—' : row.maxPods === undefined ? row.pods : `${row.pods}/${row.maxPods}`;
  return html`<tr class="row" data-node=${row.name} data-index=${props.index} aria-rowindex=${props.index + 2}>
    <td data-col="name"><a href=${hrefOf({ view: 'node', name: row.name })}>${row.name}</a></td>
    <td data-col="status"><${NodeStatusBadges} row=${row} /></td>
    <td data-col="zone">${row.zone}</td>
    <td data-col="taints" title=${row.taints.join('\n')}>
      ${row.taints.length === 0 ? '—' : row.taints.map(shortTaint).join(', ')}
    </td>
    <td data-col="heartbeat" class="num">
      ${heartbeat === undefined ? 'never' : `${humanDuration(now - heartbeat)} ago`}
    </td>
    <td data-col="pods" class="num">${pods}</td>
    <td data-col="cpu" class="num">${row.cpu ?? '—'}</td>
    <td data-col="memory" class="num">${row.memory ?? '—'}</td>
  </tr>`;
}

function Filters(props: {
  query: TableQuery;
  set: (patch: Partial<TableQuery>) => void;
  zones: string[];
  shown: number;
  total: number;
}): VNode {
  const { query, set } = props;
  const value = (e: Event): string => (e.target as HTMLInputElement | HTMLSelectElement).value;
  return html`<div class="controls">
    <label
      >Filter
      <input
        type="search"
        placeholder="name, zone or taint"
        value=${query.text}
        onInput=${(e: Event) => set({ text: value(e) })}
        aria-controls="nodes-table"
    /></label>
    <label
      >Status
      <select value=${query.state} onChange=${(e: Event) => set({ state: value(e) as StateFilter })}>
        ${STATE_OPTIONS.map((o) => html`<option value=${o.value}>${o.label}</option>`)}
      </select></label
    >
    <label
      >Zone
      <select value=${query.zone} onChange=${(e: Event) => set({ zone: value(e) })}>
        <option value="all">All zones</option>
        ${props.zones.map((z) => html`<option value=${z}>${z}</option>`)}
      </select></label
    >
    <span class="count" role="status" data-field="count"
      >Showing ${props.shown.toLocaleString('en')} of ${props.total.toLocaleString('en')} nodes</span
    >
  </div>`;
}

/**
 * Every node in a sortable, filterable table. Only the rows in view are in the DOM (table-window.ts), so 10,000
 * nodes scroll and update as smoothly as 10; the order is recomputed at most once a frame.
 */
export function NodesView(props: { stores: Stores; initialZone?: string }): VNode {
  useTitle('Nodes');
  const nodes = useStore(props.stores, 'nodes');
  const leases = useStore(props.stores, 'nodeLeases');
  const now = useNow(1000);
  const [query, setQuery] = useState<TableQuery>({ ...DEFAULT_QUERY, zone: props.initialZone ?? 'all' });
  useEffect(() => setQuery((q) => ({ ...q, zone: props.initialZone ?? 'all' })), [props.initialZone]);

  const heartbeat = (row: NodeRow): number | undefined => heartbeatOf(row, leases.get(row.name));
  // Names are sorted only when a node comes or goes; every change re-reads the rows in that order (no sort).
  const names = useMemo(() => [...nodes.keys()].sort(), [nodes.membership]);
  const allRows = useMemo(() => names.flatMap((n) => nodeRow(nodes.get(n))), [names, nodes.version]);
  const zones = useMemo(() => [...new Set(allRows.map((r) => r.zone))].sort(), [allRows]);
  // The order follows every node change, except by heartbeat: leases renew all the time, so that order is taken
  // once a second, as the ages tick. The rows drawn are always the newest objects (fresh).
  const orderTick = query.sort === 'heartbeat' ? now : allRows;
  const rows = useMemo(() => selectRows(allRows, query, heartbeat), [names, query, orderTick]);
  const fresh = (row: NodeRow): NodeRow => nodeRow(nodes.get(row.name))[0] ?? row;
  const { scroller, start, end, onScroll, onKeyDown } = useTableWindow(rows.length);
  const onSort = (key: SortKey): void =>
    setQuery((q) => ({ ...q, sort: key, descending: q.sort === key ? !q.descending : false }));
  const set = (patch: Partial<TableQuery>): void => setQuery((q) => ({ ...q, ...patch }));
  const empty =
    nodes.status.phase !== 'live' && nodes.size === 0
      ? 'Loading nodes…'
      : nodes.size === 0
        ? 'No nodes registered yet.'
        : 'No node matches.';

  return html`<h1>Nodes</h1>
    <${Filters} query=${query} set=${set} zones=${zones} shown=${rows.length} total=${nodes.size} />
    <div class="table-scroll" ref=${scroller} onScroll=${onScroll}>
      <table id="nodes-table" class="nodes-table" aria-label="Nodes" aria-rowcount=${rows.length + 1}>
        <thead>
          <tr aria-rowindex="1">
            ${COLUMNS.map((c) => html`<${SortHeader} col=${c.key} label=${c.label} query=${query} onSort=${onSort} />`)}
          </tr>
        </thead>
        <tbody onKeyDown=${onKeyDown}>
          ${
            rows.length === 0
              ? html`<tr>
                  <td class="empty" colspan=${COLUMNS.length}>${empty}</td>
                </tr>`
              : null
          }
          <${Spacer} rows=${start} />
          ${rows
            .slice(start, end)
            .map(
              (row, i) =>
                html`<${Row}
                  key=${row.name}
                  row=${fresh(row)}
                  index=${start + i}
                  heartbeat=${heartbeat(row)}
                  now=${now}
                />`,
            )}
          <${Spacer} rows=${rows.length - end} />
        </tbody>
      </table>
    </div>`;
}
