import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { humanDuration } from '../../cli/age.js';
import type { Zone } from '../../core/zone.js';
import { clusterNotes, type LeaderInfo } from '../model/cluster-notes.js';
import type { Session } from '../store/session.js';
import { LEADER_LEASE_NAME } from '../store/resources.js';
import { useNow, useStore, useTitle } from './hooks.js';
import { NotReadyChart } from './not-ready-chart.js';
import { ZoneCard } from './zone-card.js';

function Leader(props: { leader: LeaderInfo | undefined; synced: boolean; now: number }): VNode | null {
  const { leader, now } = props;
  if (!props.synced) return null;
  if (leader === undefined) {
    return html`<p class="leader muted" data-field="leader">
      No leader Lease: leader election is off, so the node lifecycle controller runs unelected (inside the server, or as
      one <code>--mode controller</code> process).
    </p>`;
  }
  const renewed = leader.renewTime === undefined ? '' : ` · renewed ${humanDuration(now - leader.renewTime)} ago`;
  return html`<p class="leader" data-field="leader">
    Controller leader: <strong>${leader.holder}</strong>${renewed}
    ${
      leader.expired
        ? html` <span class="badge tone-bad">lease expired</span> no controller leads until another takes the lease.`
        : null
    }
  </p>`;
}

function byName(a: Zone, b: Zone): number {
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/** Zones, the controller's banners and leader, and the not-ready chart: what a rack failure looks like. */
export function Overview(props: { session: Session }): VNode {
  useTitle('Overview');
  const zonesStore = useStore(props.session.stores, 'zones');
  const leases = useStore(props.session.stores, 'systemLeases');
  const now = useNow(1000);
  const zones = [...zonesStore.values()].sort(byName);
  const notes = clusterNotes(zones, leases.get(LEADER_LEASE_NAME), now);
  const live = zonesStore.status.phase === 'live';
  return html`<h1>Overview</h1>
    ${
      notes.masterDisruption
        ? html`<div class="banner tone-bad" role="alert" data-banner="master-disruption">
            <strong>Master disruption.</strong>Every zone is in FullDisruption, so the controller assumes its own view
            is broken: it has removed NoExecute taints and stopped tainting until a zone recovers.
          </div>`
        : null
    }
    ${
      notes.breaker !== undefined
        ? html`<div class="banner tone-warn" role="alert" data-banner="circuit-breaker">
            <strong>Lease circuit breaker holding.</strong>${notes.breaker}. No node is marked Unknown or tainted until
            the lease cache catches up.
          </div>`
        : null
    }
    <${Leader} leader=${notes.leader} synced=${leases.status.phase === 'live'} now=${now} />
    <section aria-labelledby="zones-title">
      <h2 id="zones-title" class="visually-hidden">Zones</h2>
      ${
        zones.length === 0
          ? html`<p class="panel muted">
              ${
                live
                  ? 'No zones yet: the node lifecycle controller writes one Zone object per zone once it has seen nodes.'
                  : 'Loading zones…'
              }
            </p>`
          : html`<div class="zones">
              ${zones.map((z) => html`<${ZoneCard} key=${z.metadata.name} zone=${z} now=${now} />`)}
            </div>`
      }
    </section>
    <section class="panel chart"><${NotReadyChart} session=${props.session} /></section>`;
}
