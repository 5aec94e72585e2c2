import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { humanDuration } from '../../cli/age.js';
import type { Zone, ZoneState } from '../../core/zone.js';
import { clockTime } from '../../core/verdict-format.js';
import { hrefOf } from '../model/route.js';
import { taintQueueOf, type TaintQueue } from '../model/taint-queue.js';
import { ZONE_TONE, ZoneStateBadge } from './badges.js';

/** What each state means for tainting, in the controller's terms (kube-controller-manager's zone states). */
const EXPLAIN: Readonly<Record<ZoneState, string>> = {
  Initial: 'Not judged yet: the controller has not finished a pass over this zone.',
  Normal: 'Unhealthy nodes are tainted at the normal eviction rate.',
  PartialDisruption:
    'Many nodes are not ready (above --unhealthy-zone-threshold): tainting is slowed, or stopped in a small zone.',
  FullDisruption:
    'No node in this zone is ready. Tainting goes on at the normal rate unless every zone is down (master disruption).',
};

/** Taints per second as `sheepctl zones` prints it (src/cli/zone-table.ts). */
export function rateText(rate: number): string {
  return rate === 0 ? 'stopped (0/s)' : `${Number(rate.toFixed(4))} taints/s`;
}

/** The nodes after the first: `then n2, n3, n4, …`. */
function thenText(queue: TaintQueue): string {
  const names = queue.next.slice(1, 4).map((n) => n.node);
  return `then ${names.join(', ')}${queue.length > 1 + names.length ? ', …' : ''}`;
}

/** How many nodes wait, and the first few with the time each may be tainted (docs/dashboard.md#taint-queue). */
function QueueFacts(props: { queue: TaintQueue | undefined; rate: number; now: number }): VNode {
  const { queue, now } = props;
  if (queue === undefined)
    return html`<dt>Taint queue</dt>
      <dd data-field="taintQueue">empty</dd>`;
  const first = queue.next[0];
  const when = (at: number | undefined): string =>
    at === undefined
      ? props.rate === 0
        ? 'held: tainting is stopped in this zone'
        : 'time not known'
      : `${clockTime(new Date(at).toISOString(), now)} (${at > now ? `in ${humanDuration(at - now)}` : 'due'})`;
  return html`<dt>Taint queue</dt>
    <dd data-field="taintQueue">${queue.length} waiting for a NoExecute taint</dd>
    ${
      first === undefined
        ? null
        : html`<dt>Next taint</dt>
            <dd data-field="nextTaint">
              <a href=${hrefOf({ view: 'node', name: first.node })}>${first.node}</a> ${when(first.at)}
              ${queue.next.length > 1 ? html`<div class="muted">${thenText(queue)}</div>` : null}
            </dd>`
    }`;
}

/** One zone as its Zone object and the controller's annotations on it say. */
export function ZoneCard(props: { zone: Zone; now: number }): VNode {
  const { metadata, status } = props.zone;
  const id = `zone-${metadata.name}`;
  const pct = status.nodes === 0 ? 0 : Math.round((100 * status.notReady) / status.nodes);
  return html`<article
    class=${`zone-card tone-border-${ZONE_TONE[status.state]}`}
    aria-labelledby=${id}
    data-zone=${metadata.name}
  >
    <header>
      <h2 id=${id}>${metadata.name}</h2>
      <${ZoneStateBadge} state=${status.state} />
    </header>
    <dl>
      <dt>Nodes</dt>
      <dd data-field="nodes">${status.nodes}</dd>
      <dt>Not ready</dt>
      <dd data-field="notReady">${status.notReady}${status.nodes > 0 ? ` (${pct}%)` : ''}</dd>
      <dt>Eviction rate</dt>
      <dd data-field="evictionRate">${rateText(status.evictionRate)}</dd>
      <${QueueFacts} queue=${taintQueueOf(props.zone)} rate=${status.evictionRate} now=${props.now} />
    </dl>
    <p class="explain">${EXPLAIN[status.state]}</p>
    <div class="links"><a href=${hrefOf({ view: 'nodes', zone: metadata.name })}>Nodes in ${metadata.name}</a></div>
  </article>`;
}
