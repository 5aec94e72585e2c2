import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useMemo } from 'preact/hooks';
import { age, humanDuration } from '../../cli/age.js';
import type { Event } from '../../core/event.js';
import type { Lease } from '../../core/lease.js';
import type { Node } from '../../core/node.js';
import { rowOf, taintText } from '../model/node-row.js';
import { ALL_PODS, selectPods, sortKeys } from '../model/pod-row.js';
import { hrefOf } from '../model/route.js';
import { fieldScope } from '../store/resources.js';
import type { Stores } from '../store/stores.js';
import { ConditionBadge, NodeStatusBadges } from './badges.js';
import { EventTable } from './events-view.js';
import { useNow, useStore, useTitle } from './hooks.js';
import { PodTable } from './pod-table.js';
import { VerdictTimeline } from './verdict-timeline.js';

/** The pods bound to the node, from a watch of just those (`spec.nodeName`), so a big cluster costs nothing here. */
function NodePods(props: { stores: Stores; node: string; now: number }): VNode {
  const pods = useStore(props.stores, 'pods', fieldScope('spec.nodeName', props.node, `pods on ${props.node}`));
  const rows = useMemo(
    () =>
      selectPods(
        sortKeys(pods.keys()).map((k) => pods.get(k)),
        ALL_PODS,
      ),
    [pods.version],
  );
  return html`<section class="panel" aria-labelledby="node-pods-title">
    <h2 id="node-pods-title">Pods</h2>
    <${PodTable}
      rows=${rows}
      now=${props.now}
      limit=${500}
      empty=${pods.status.phase === 'live' ? 'No pods on this node.' : 'Loading…'}
    />
    <div class="links"><a href=${hrefOf({ view: 'pods', node: props.node })}>In the Pods view</a></div>
  </section>`;
}

function Facts(props: { node: Node; now: number }): VNode {
  const { node, now } = props;
  const row = rowOf(node);
  const info = node.status.nodeInfo;
  const labels = Object.entries(node.metadata.labels ?? {});
  return html`<section class="panel" aria-labelledby="facts-title">
    <h2 id="facts-title">Node</h2>
    <dl class="facts">
      <dt>Zone</dt>
      <dd><a href=${hrefOf({ view: 'nodes', zone: row.zone })}>${row.zone}</a></dd>
      <dt>Created</dt>
      <dd>${age(node.metadata.creationTimestamp, now)} ago</dd>
      <dt>Schedulable</dt>
      <dd>${node.spec.unschedulable === true ? 'no (cordoned)' : 'yes'}</dd>
      ${
        info
          ? html`<dt>Agent</dt>
              <dd>${info.agentVersion} on ${info.hostname} (${info.os}/${info.arch})</dd>`
          : null
      }
      ${(node.status.addresses ?? []).map(
        (a) =>
          html`<dt>${a.type}</dt>
            <dd>${a.address}</dd>`,
      )}
      <dt>Pods</dt>
      <dd>${row.pods ?? '—'}${row.maxPods === undefined ? '' : ` of ${row.maxPods}`}</dd>
      <dt>CPU / memory</dt>
      <dd>${row.cpu ?? '—'} / ${row.memory ?? '—'}</dd>
      <dt>Labels</dt>
      <dd>${labels.length === 0 ? '—' : labels.map(([k, v]) => html`<div><code>${k}=${v}</code></div>`)}</dd>
    </dl>
  </section>`;
}

function LeaseFacts(props: { lease: Lease | undefined; synced: boolean; now: number }): VNode {
  const { lease, now } = props;
  let body: VNode;
  if (lease === undefined) {
    body = html`<p class="muted">
      ${props.synced ? 'No Lease in node-lease: the node heartbeats through its status only.' : 'Loading…'}
    </p>`;
  } else {
    const renew = Date.parse(lease.spec.renewTime);
    const left = renew + lease.spec.leaseDurationSeconds * 1000 - now;
    body = html`<dl class="facts">
      <dt>Holder</dt>
      <dd>${lease.spec.holderIdentity}</dd>
      <dt>Renewed</dt>
      <dd data-field="lease-renewed">${humanDuration(now - renew)} ago</dd>
      <dt>Duration</dt>
      <dd>${lease.spec.leaseDurationSeconds}s</dd>
      <dt>Expiry</dt>
      <dd>
        ${
          left >= 0
            ? `in ${humanDuration(left)}`
            : html`<span class="badge tone-bad">expired</span> ${humanDuration(-left)} ago`
        }
      </dd>
      ${
        lease.spec.acquireTime
          ? html`<dt>Acquired</dt>
              <dd>${age(lease.spec.acquireTime, now)} ago</dd>`
          : null
      }
    </dl>`;
  }
  return html`<section class="panel" aria-labelledby="lease-title">
    <h2 id="lease-title">Lease</h2>
    ${body}
  </section>`;
}

function Conditions(props: { node: Node; now: number }): VNode {
  const conditions = props.node.status.conditions ?? [];
  return html`<section class="panel" aria-labelledby="conditions-title">
    <h2 id="conditions-title">Conditions</h2>
    ${
      conditions.length === 0
        ? html`<p class="muted">No conditions posted yet.</p>`
        : html`<table class="detail-table" data-table="conditions">
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Reason</th>
                <th scope="col">Message</th>
                <th scope="col">Last heartbeat</th>
                <th scope="col">Last transition</th>
              </tr>
            </thead>
            <tbody>
              ${conditions.map(
                (c) =>
                  html`<tr data-condition=${c.type}>
                    <td>${c.type}</td>
                    <td><${ConditionBadge} type=${c.type} status=${c.status} /></td>
                    <td>${c.reason ?? ''}</td>
                    <td>${c.message ?? ''}</td>
                    <td>${c.lastHeartbeatTime ? `${age(c.lastHeartbeatTime, props.now)} ago` : '—'}</td>
                    <td>${c.lastTransitionTime ? `${age(c.lastTransitionTime, props.now)} ago` : '—'}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

function Taints(props: { node: Node; now: number }): VNode {
  const taints = props.node.spec.taints ?? [];
  return html`<section class="panel" aria-labelledby="taints-title">
    <h2 id="taints-title">Taints</h2>
    ${
      taints.length === 0
        ? html`<p class="muted">None.</p>`
        : html`<table class="detail-table" data-table="taints">
            <thead>
              <tr>
                <th scope="col">Taint</th>
                <th scope="col">Effect</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              ${taints.map(
                (t) =>
                  html`<tr>
                    <td><code>${taintText(t)}</code></td>
                    <td>${t.effect}</td>
                    <td>${t.timeAdded ? `${age(t.timeAdded, props.now)} ago` : '—'}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

function eventsOf(events: Iterable<Event>, name: string): Event[] {
  const out: Event[] = [];
  for (const e of events) if (e.involvedObject.kind === 'Node' && e.involvedObject.name === name) out.push(e);
  return out.sort((a, b) => (a.lastTimestamp < b.lastTimestamp ? 1 : a.lastTimestamp > b.lastTimestamp ? -1 : 0));
}

/** One node: its conditions, lease, taints with their age, pods, Verdicts and events, live. */
export function NodeDetail(props: { stores: Stores; name: string }): VNode {
  useTitle(props.name);
  const nodes = useStore(props.stores, 'nodes');
  const leases = useStore(props.stores, 'nodeLeases');
  const events = useStore(props.stores, 'events');
  const now = useNow(1000);
  const node = nodes.get(props.name);
  const crumb = html`<nav class="breadcrumb" aria-label="Breadcrumb"><a href="#/nodes">Nodes</a> / ${props.name}</nav>`;
  if (node === undefined) {
    return html`${crumb}
      <h1>${props.name}</h1>
      <p class="panel muted" role="status">
        ${nodes.status.phase === 'live' ? `No node named ${props.name} (it may have been deleted).` : 'Loading…'}
      </p>`;
  }
  const row = rowOf(node);
  return html`${crumb}
    <h1>
      ${props.name} <span data-field="node-status"><${NodeStatusBadges} row=${row} /></span>
    </h1>
    <p class="muted">${row.detail}</p>
    <div class="detail-grid">
      <${Facts} node=${node} now=${now} />
      <${LeaseFacts} lease=${leases.get(props.name)} synced=${leases.status.phase === 'live'} now=${now} />
    </div>
    <${Conditions} node=${node} now=${now} />
    <${Taints} node=${node} now=${now} />
    <${NodePods} stores=${props.stores} node=${props.name} now=${now} />
    <${VerdictTimeline} stores=${props.stores} node=${props.name} now=${now} />
    <section class="panel" aria-labelledby="node-events-title">
      <h2 id="node-events-title">Events</h2>
      <${EventTable} events=${eventsOf(events.values(), props.name)} now=${now} limit=${200} />
    </section>`;
}
