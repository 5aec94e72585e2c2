import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { age } from '../../cli/age.js';
import type { Event } from '../../core/event.js';
import { hrefOf } from '../model/route.js';
import type { Stores } from '../store/stores.js';
import { Badge } from './badges.js';
import { useNow, useStore, useTitle } from './hooks.js';

/** Newest first; more than this many rows is a wall nobody reads: the filters narrow it instead. */
const SHOWN = 500;

function newestFirst(a: Event, b: Event): number {
  if (a.lastTimestamp !== b.lastTimestamp) return a.lastTimestamp < b.lastTimestamp ? 1 : -1;
  return Number(b.metadata.resourceVersion) - Number(a.metadata.resourceVersion);
}

function ObjectLink(props: { event: Event }): VNode {
  const o = props.event.involvedObject;
  return o.kind === 'Node'
    ? html`<a href=${hrefOf({ view: 'node', name: o.name })}>Node/${o.name}</a>`
    : html`<span>${o.kind}/${o.name}</span>`;
}

/** Events as `sheepctl events` lists them, sorted by the caller; shared with the node page. */
export function EventTable(props: { events: Event[]; now: number; limit: number }): VNode {
  const { events, now } = props;
  if (events.length === 0) return html`<p class="muted">No events.</p>`;
  return html`<table class="events-table" data-table="events">
      <thead>
        <tr>
          <th scope="col">Last seen</th>
          <th scope="col">Type</th>
          <th scope="col">Reason</th>
          <th scope="col">Object</th>
          <th scope="col">Message</th>
          <th scope="col">Count</th>
          <th scope="col">Source</th>
        </tr>
      </thead>
      <tbody>
        ${events.slice(0, props.limit).map(
          (e) =>
            html`<tr data-reason=${e.reason}>
              <td>${age(e.lastTimestamp, now)} ago</td>
              <td><${Badge} tone=${e.type === 'Warning' ? 'warn' : 'idle'} text=${e.type} /></td>
              <td>${e.reason}</td>
              <td><${ObjectLink} event=${e} /></td>
              <td>${e.message}</td>
              <td class="num">${e.count}</td>
              <td>${e.source.component}${e.source.host ? ` (${e.source.host})` : ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      events.length > props.limit
        ? html`<p class="muted">
            Showing the newest ${props.limit} of ${events.length}: narrow the filters to see more.
          </p>`
        : null
    }`;
}

/** The cluster's events as they happen, newest first, filtered by type, reason and object name. */
export function EventsView(props: { stores: Stores }): VNode {
  useTitle('Events');
  const store = useStore(props.stores, 'events');
  const now = useNow(1000);
  const [type, setType] = useState('all');
  const [reason, setReason] = useState('all');
  const [text, setText] = useState('');
  const all = useMemo(() => [...store.values()].sort(newestFirst), [store.version]);
  const reasons = useMemo(() => [...new Set(all.map((e) => e.reason))].sort(), [all]);
  const needle = text.trim().toLowerCase();
  const shown = all.filter(
    (e) =>
      (type === 'all' || e.type === type) &&
      (reason === 'all' || e.reason === reason) &&
      (needle === '' || e.involvedObject.name.toLowerCase().includes(needle)),
  );
  const value = (e: globalThis.Event): string => (e.target as HTMLInputElement | HTMLSelectElement).value;
  return html`<h1>Events</h1>
    <div class="controls">
      <label
        >Type
        <select value=${type} onChange=${(e: globalThis.Event) => setType(value(e))}>
          <option value="all">All types</option>
          <option value="Warning">Warning</option>
          <option value="Normal">Normal</option>
        </select></label
      >
      <label
        >Reason
        <select value=${reason} onChange=${(e: globalThis.Event) => setReason(value(e))}>
          <option value="all">All reasons</option>
          ${reasons.map((r) => html`<option value=${r}>${r}</option>`)}
        </select></label
      >
      <label
        >Object
        <input
          type="search"
          placeholder="node name"
          value=${text}
          onInput=${(e: globalThis.Event) => setText(value(e))}
      /></label>
      <span class="count" data-field="count">${shown.length} of ${all.length} events</span>
    </div>
    <section class="panel" aria-label="Event stream">
      ${
        store.status.phase !== 'live' && store.size === 0
          ? html`<p class="muted">Loading events…</p>`
          : html`<${EventTable} events=${shown} now=${now} limit=${SHOWN} />`
      }
    </section>`;
}
