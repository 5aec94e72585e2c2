import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Stores } from '../store/stores.js';

/** The header's indicator: Live when every watch the page holds is open, else which one is waiting and why. */
export function ConnectionStatus(props: { stores: Stores }): VNode {
  const [, setTick] = useState(0);
  useEffect(() => {
    const bump = (): void => setTick((t) => t + 1);
    const subscriptions = new Map<object, () => void>();
    const watchAll = (): void => {
      const running = new Set<object>(props.stores.started());
      for (const [s, off] of subscriptions) {
        if (running.has(s)) continue;
        off();
        subscriptions.delete(s);
      }
      for (const s of props.stores.started()) if (!subscriptions.has(s)) subscriptions.set(s, s.subscribe(bump));
      bump();
    };
    watchAll();
    const offStart = props.stores.onChange(watchAll);
    return () => {
      offStart();
      for (const off of subscriptions.values()) off();
    };
  }, [props.stores]);

  const started = props.stores.started();
  const waiting = started.find((s) => s.status.phase === 'reconnecting');
  const connecting = started.some((s) => s.status.phase === 'connecting');
  const phase = waiting ? 'reconnecting' : connecting ? 'connecting' : 'live';
  const text =
    phase === 'live'
      ? 'Live'
      : phase === 'connecting'
        ? 'Connecting…'
        : `Reconnecting (${waiting?.resource.title}: ${waiting?.status.error?.message ?? 'stream ended'})`;
  return html`<span class=${`connection ${phase}`} role="status" aria-live="polite" title=${text}
    ><span class="dot" aria-hidden="true"></span>${phase === 'reconnecting' ? 'Reconnecting…' : text}<span
      class="visually-hidden"
      >${phase === 'reconnecting' ? text : ''}</span
    ></span
  >`;
}
