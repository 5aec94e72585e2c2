import type { Clock } from '../../core/clock.js';
import type { Random } from '../../core/random.js';
import { ZoneHistory } from '../model/zone-history.js';
import { Stores } from './stores.js';
import type { ApiTransport } from './transport.js';

export interface Session {
  stores: Stores;
  /** Not-ready nodes per zone since the page was opened (the Overview's chart). */
  history: ZoneHistory;
  /** Grows with every sample, so the chart knows when to redraw. */
  historyVersion(): number;
  onHistory(listener: () => void): () => void;
  stop(): void;
}

/**
 * One signed-in stretch of the page: its stores and the chart's history, which is recorded from the zone watch
 * whatever view is open, once a second and at every zone change.
 */
export function startSession(deps: {
  transport: ApiTransport;
  clock: Clock;
  random: Random;
  onUnauthorized: () => void;
}): Session {
  const stores = new Stores(deps);
  const history = new ZoneHistory();
  const listeners = new Set<() => void>();
  let version = 0;
  const zones = stores.get('zones');
  stores.hold(zones);
  const sample = (): void => {
    if (zones.status.phase !== 'live') return;
    const counts = new Map<string, number>();
    for (const z of zones.values()) counts.set(z.metadata.name, z.status.notReady);
    history.record(deps.clock.now(), counts);
    version++;
    for (const l of listeners) l();
  };
  const unsubscribe = zones.subscribe(sample);
  const timer = setInterval(sample, 1000);
  return {
    stores,
    history,
    historyVersion: () => version,
    onHistory: (l) => {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    stop: () => {
      clearInterval(timer);
      unsubscribe();
      stores.stop();
    },
  };
}
