import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ALL_PODS, selectPods, sortKeys, type PodQuery } from '../model/pod-row.js';
import type { Stores } from '../store/stores.js';
import { useNow, useStore, useTitle } from './hooks.js';
import { PodHeader, PodTr, POD_COLUMNS } from './pod-table.js';
import { Spacer, useTableWindow } from './table-window.js';

const PHASES = ['Pending', 'Running', 'Succeeded', 'Failed'] as const;

function Select(props: {
  label: string;
  value: string;
  all: string;
  options: readonly string[];
  onChange: (v: string) => void;
}): VNode {
  // A filter from the link may name something not (yet) listed: keep it selectable rather than silently "all".
  const options =
    props.value === 'all' || props.options.includes(props.value) ? props.options : [props.value, ...props.options];
  return html`<label
    >${props.label}
    <select value=${props.value} onChange=${(e: Event) => props.onChange((e.target as HTMLSelectElement).value)}>
      <option value="all">${props.all}</option>
      ${options.map((o) => html`<option value=${o}>${o}</option>`)}
    </select></label
  >`;
}

/**
 * Every pod of every namespace, as `kubectl get pods -A -o wide` lists them, filtered by name, namespace, node and
 * phase; virtualised like the Nodes table.
 */
export function PodsView(props: { stores: Stores; initial: Partial<PodQuery> }): VNode {
  useTitle('Pods');
  const pods = useStore(props.stores, 'pods');
  const now = useNow(1000);
  const [query, setQuery] = useState<PodQuery>({ ...ALL_PODS, ...props.initial });
  const { namespace, node, phase } = props.initial;
  // A new link (#/pods?node=…) replaces the filters it names; the name filter stays.
  useEffect(
    () => setQuery((q) => ({ ...q, namespace: namespace ?? 'all', node: node ?? 'all', phase: phase ?? 'all' })),
    [namespace, node, phase],
  );
  const set = (patch: Partial<PodQuery>): void => setQuery((q) => ({ ...q, ...patch }));
  // Keys are sorted only when a pod comes or goes; a change of a pod re-reads the rows in that order (no sort).
  const keys = useMemo(() => sortKeys(pods.keys()), [pods.membership]);
  const rows = useMemo(
    () =>
      selectPods(
        keys.map((k) => pods.get(k)),
        query,
      ),
    [keys, pods.version, query],
  );
  const [namespaces, nodes] = useMemo(() => {
    const ns = new Set<string>();
    const nd = new Set<string>();
    for (const p of pods.values()) {
      ns.add(p.metadata.namespace);
      if (p.spec.nodeName !== undefined) nd.add(p.spec.nodeName);
    }
    return [[...ns].sort(), [...nd].sort()];
  }, [pods.membership]);
  const { scroller, start, end, onScroll, onKeyDown } = useTableWindow(rows.length);
  const empty =
    pods.status.phase !== 'live' && pods.size === 0
      ? 'Loading pods…'
      : pods.size === 0
        ? 'No pods yet.'
        : 'No pod matches.';
  return html`<h1>Pods</h1>
    <div class="controls">
      <label
        >Filter
        <input
          type="search"
          placeholder="pod name"
          value=${query.text}
          onInput=${(e: Event) => set({ text: (e.target as HTMLInputElement).value })}
          aria-controls="pods-table"
      /></label>
      <${Select}
        label="Namespace"
        value=${query.namespace}
        all="All namespaces"
        options=${namespaces}
        onChange=${(v: string) => set({ namespace: v })}
      />
      <${Select}
        label="Node"
        value=${query.node}
        all="All nodes"
        options=${nodes}
        onChange=${(v: string) => set({ node: v })}
      />
      <${Select}
        label="Phase"
        value=${query.phase}
        all="All phases"
        options=${PHASES}
        onChange=${(v: string) => set({ phase: v })}
      />
      <span class="count" role="status" data-field="count"
        >Showing ${rows.length.toLocaleString('en')} of ${pods.size.toLocaleString('en')} pods</span
      >
    </div>
    <div class="table-scroll" ref=${scroller} onScroll=${onScroll}>
      <table id="pods-table" class="nodes-table pods-table" aria-label="Pods" aria-rowcount=${rows.length + 1}>
        <thead>
          <${PodHeader} />
        </thead>
        <tbody onKeyDown=${onKeyDown}>
          ${
            rows.length === 0
              ? html`<tr>
                  <td class="empty" colspan=${POD_COLUMNS.length}>${empty}</td>
                </tr>`
              : null
          }
          <${Spacer} rows=${start} />
          ${rows.slice(start, end).map((r, i) => html`<${PodTr} key=${r.key} row=${r} now=${now} index=${start + i} />`)}
          <${Spacer} rows=${rows.length - end} />
        </tbody>
      </table>
    </div>`;
}
