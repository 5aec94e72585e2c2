import { html } from 'htm/preact';
import type { VNode } from 'preact';
import type { ZoneState } from '../../core/zone.js';
import type { NodeRow, NodeState } from '../model/node-row.js';

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'idle';

const NODE_TONE: Readonly<Record<NodeState, Tone>> = {
  Ready: 'ok',
  NotReady: 'warn',
  Unknown: 'bad',
  NoStatus: 'idle',
};
const NODE_WORD: Readonly<Record<NodeState, string>> = {
  Ready: 'Ready',
  NotReady: 'NotReady',
  Unknown: 'Unknown',
  NoStatus: 'No status',
};

export const ZONE_TONE: Readonly<Record<ZoneState, Tone>> = {
  Initial: 'idle',
  Normal: 'ok',
  PartialDisruption: 'warn',
  FullDisruption: 'bad',
};

export function Badge(props: { tone: Tone; text: string; title?: string }): VNode {
  return html`<span class=${`badge tone-${props.tone}`} title=${props.title}>${props.text}</span>`;
}

/** Between two badges: read (and copied) as `kubectl get nodes` writes it, `Ready,Suspect`; the gap shows it. */
function Sep(): VNode {
  return html`<span class="visually-hidden">,</span>`;
}

/**
 * A node's state as `kubectl get nodes` words it (Ready, NotReady, Unknown), then `Suspect` while a `Suspect=True`
 * condition is present and `SchedulingDisabled` when cordoned: the cell's text is `Ready,Suspect`.
 */
export function NodeStatusBadges(props: { row: NodeRow }): VNode {
  const { row } = props;
  return html`<${Badge} tone=${NODE_TONE[row.state]} text=${NODE_WORD[row.state]} title=${row.detail} />${
      row.suspect
        ? html`<${Sep} /><${Badge} tone="warn" text="Suspect" title="Suspect=True: see the conditions" />`
        : null
    }${row.unschedulable ? html`<${Sep} /><${Badge} tone="idle" text="SchedulingDisabled" />` : null}`;
}

export function ZoneStateBadge(props: { state: ZoneState }): VNode {
  return html`<${Badge} tone=${ZONE_TONE[props.state]} text=${props.state} />`;
}

export function ConditionBadge(props: { type: string; status: string }): VNode {
  // Ready=True is good; for every other condition (pressure, Suspect) True is the bad news.
  const good = props.type === 'Ready' ? props.status === 'True' : props.status === 'False';
  const tone: Tone = props.status === 'Unknown' ? 'bad' : good ? 'ok' : props.type === 'Ready' ? 'warn' : 'info';
  return html`<${Badge} tone=${tone} text=${props.status} />`;
}
