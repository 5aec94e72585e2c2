import { html } from 'htm/preact';
import type { VNode } from 'preact';
import type { Zone, ZoneState } from '../../core/zone.js';
import { hrefOf } from '../model/route.js';
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

/**
 * One zone as its Zone object says. The controller's taint queue (which nodes wait, and when the next taint is
 * due) is not published through the API, so the card says so instead of guessing (docs/dashboard.md#taint-queue).
 */
export function ZoneCard(props: { zone: Zone }): VNode {
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
      <dt>Taint queue</dt>
      <dd class="muted">not reported by the API</dd>
    </dl>
    <p class="explain">${EXPLAIN[status.state]}</p>
    <div class="links"><a href=${hrefOf({ view: 'nodes', zone: metadata.name })}>Nodes in ${metadata.name}</a></div>
  </article>`;
}
