import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { age } from '../../cli/age.js';
import type { PodRow } from '../model/pod-row.js';
import { hrefOf } from '../model/route.js';
import { Badge } from './badges.js';

/** The columns of `kubectl get pods -A -o wide`, as the Pods view and the node and Deployment pages show them. */
export const POD_COLUMNS = ['Name', 'Namespace', 'Ready', 'Status', 'Restarts', 'Node', 'Age'] as const;

export function PodHeader(): VNode {
  return html`<tr aria-rowindex="1">
    ${POD_COLUMNS.map((c) => html`<th scope="col" class=${`col-${c.toLowerCase()}`}>${c}</th>`)}
  </tr>`;
}

/** One pod's row; `index` places it in a virtual window (keyboard navigation, aria-rowindex). */
export function PodTr(props: { row: PodRow; now: number; index: number }): VNode {
  const { row, now } = props;
  return html`<tr class="row" data-pod=${row.key} data-index=${props.index} aria-rowindex=${props.index + 2}>
    <td data-col="name">
      ${
        row.owner === undefined
          ? html`<span tabindex="0">${row.name}</span>`
          : html`<a
              href=${hrefOf({ view: 'deployment', namespace: row.namespace, name: row.owner })}
              title=${`Deployment ${row.owner}`}
              >${row.name}</a
            >`
      }
    </td>
    <td data-col="namespace">${row.namespace}</td>
    <td data-col="ready" class="num">${row.ready}</td>
    <td data-col="status"><${Badge} tone=${row.tone} text=${row.status} /></td>
    <td data-col="restarts" class="num">${row.restarts}</td>
    <td data-col="node">
      ${row.node === undefined ? html`<span class="muted">&lt;none&gt;</span>` : html`<a href=${hrefOf({ view: 'node', name: row.node })}>${row.node}</a>`}
    </td>
    <td data-col="age" class="num">${age(row.created, now)}</td>
  </tr>`;
}

/** A short list of pods (those on one node, or of one Deployment); the Pods view is the place for thousands. */
export function PodTable(props: { rows: PodRow[]; now: number; limit: number; empty: string }): VNode {
  const { rows, now } = props;
  if (rows.length === 0) return html`<p class="muted">${props.empty}</p>`;
  return html`<table class="detail-table pods-table" data-table="pods">
      <thead>
        <${PodHeader} />
      </thead>
      <tbody>
        ${rows.slice(0, props.limit).map((r, i) => html`<${PodTr} key=${r.key} row=${r} now=${now} index=${i} />`)}
      </tbody>
    </table>
    ${
      rows.length > props.limit
        ? html`<p class="muted">Showing ${props.limit} of ${rows.length}: the Pods view lists them all.</p>`
        : null
    }`;
}
