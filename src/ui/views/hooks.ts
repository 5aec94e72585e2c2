import { useEffect, useState } from 'preact/hooks';
import type { ListWatchStore } from '../store/list-watch-store.js';
import type { ResourceName, ResourceTypes } from '../store/resources.js';
import type { StoreScope, Stores } from '../store/stores.js';

/**
 * The store of a resource (or of a scope of it), held while the calling view is shown, re-rendering the view at most
 * once per animation frame however many watch events arrive: a rack failure sends hundreds a second, the screen
 * needs one paint.
 */
export function useStore<N extends ResourceName>(
  stores: Stores,
  name: N,
  scope?: StoreScope,
): ListWatchStore<ResourceTypes[N]> {
  const store = stores.get(name, scope);
  const [, setTick] = useState(0);
  useEffect(() => {
    const release = stores.hold(store);
    let frame = 0;
    const unsubscribe = store.subscribe(() => {
      if (frame !== 0) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        setTick((t) => t + 1);
      });
    });
    return () => {
      unsubscribe();
      release();
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [stores, store]);
  return store;
}

/** The wall clock, ticking every `ms`, for live ages ("12s ago"). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/** Names the browser tab after the current view. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · shepherd`;
  }, [title]);
}
