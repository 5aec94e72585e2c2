import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { humanDuration } from '../../cli/age.js';
import { parseTime } from '../../core/clock.js';
import type { Verdict } from '../../core/verdict.js';
import { clockTime, evidenceLine, sortOldestFirst } from '../../core/verdict-format.js';
import { fieldScope } from '../store/resources.js';
import type { Stores } from '../store/stores.js';
import { Badge, type Tone } from './badges.js';
import { useStore } from './hooks.js';

/** The actions of docs/verdicts.md#actions by how bad the news is; anything newer reads as information. */
const ACTION_TONE: Readonly<Record<string, Tone>> = {
  MarkUnknown: 'bad',
  Taint: 'bad',
  SwapTaint: 'bad',
  QueueTaint: 'warn',
  Hold: 'info',
  RemoveTaint: 'ok',
  Ready: 'ok',
};

type Show = 'all' | 'live' | 'dry-run';

function VerdictItem(props: { v: Verdict; now: number }): VNode {
  const { v, now } = props;
  const at = parseTime(v.evidence.observedAt);
  const evidence = evidenceLine(v, now);
  return html`<li
    class=${`verdict${v.dryRun ? ' dry-run' : ''}`}
    data-verdict=${v.metadata.name}
    data-action=${v.action}
  >
    <div class="verdict-head">
      <time datetime=${v.evidence.observedAt}>${clockTime(v.evidence.observedAt, now)}</time>
      ${Number.isNaN(at) ? null : html`<span class="muted">${humanDuration(Math.max(0, now - at))} ago</span>`}
      <${Badge} tone=${v.dryRun ? 'idle' : 'info'} text=${v.dryRun ? 'dry-run' : 'live'} />
      <${Badge} tone=${ACTION_TONE[v.action] ?? 'info'} text=${v.action} />
      <span data-field="reason">(${v.reason})</span>
    </div>
    <p class="verdict-message">${v.message}</p>
    ${evidence === '' ? null : html`<p class="verdict-evidence"><span class="label">Evidence:</span> ${evidence}</p>`}
    ${v.next ? html`<p class="verdict-next"><span class="label">Next:</span> ${v.next}</p>` : null}
  </li>`;
}

/**
 * The node's Verdicts, oldest first and the newest last, live: `sheepctl explain node` as a page
 * (docs/verdicts.md#explain). Live and dry-run verdicts are told apart by a badge, and either can be hidden.
 */
export function VerdictTimeline(props: { stores: Stores; node: string; now: number }): VNode {
  const store = useStore(props.stores, 'verdicts', fieldScope('node', props.node, `verdicts of ${props.node}`));
  const [show, setShow] = useState<Show>('all');
  const all = useMemo(() => sortOldestFirst([...store.values()]), [store.version]);
  const shown = all.filter((v) => show === 'all' || v.dryRun === (show === 'dry-run'));
  const dry = all.filter((v) => v.dryRun).length;
  let body: VNode;
  if (all.length === 0)
    body = html`<p class="muted">
      ${store.status.phase === 'live' ? 'None: the controller has decided nothing about this node.' : 'Loading…'}
    </p>`;
  else if (shown.length === 0) body = html`<p class="muted">None of this kind.</p>`;
  else
    body = html`<ol class="verdicts" data-list="verdicts">
      ${shown.map((v) => html`<${VerdictItem} key=${v.metadata.name} v=${v} now=${props.now} />`)}
    </ol>`;
  return html`<section class="panel" aria-labelledby="verdicts-title">
    <h2 id="verdicts-title">Verdicts</h2>
    <div class="controls">
      <label
        >Show
        <select value=${show} onChange=${(e: Event) => setShow((e.target as HTMLSelectElement).value as Show)}>
          <option value="all">Live and dry-run</option>
          <option value="live">Live only</option>
          <option value="dry-run">Dry-run only</option>
        </select></label
      >
      <span class="count" data-field="verdict-count"
        >${all.length - dry} live, ${dry} dry-run; oldest first, the newest last</span
      >
    </div>
    ${body}
  </section>`;
}
