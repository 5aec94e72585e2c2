import type { ApiClient } from '../client/api-client.js';
import { watchWithResume } from '../client/watch-resume.js';
import { isAbortError, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { ANNOTATION_MASTER_DISRUPTION, type Zone, type ZoneState } from '../core/zone.js';

export interface ZoneView {
  state: ZoneState;
  evictionRate: number;
  nodes: number;
  notReady: number;
  masterDisruption: boolean;
}

export type ZoneChange = (name: string, before: ZoneView | undefined, after: ZoneView | undefined) => void;

export function zoneViewOf(zone: Zone): ZoneView {
  return {
    ...zone.status,
    masterDisruption: zone.metadata.annotations?.[ANNOTATION_MASTER_DISRUPTION] === 'true',
  };
}

/** The controller's Zone objects (GET /api/v1/zones), kept current by a watch: zone states as they happen. */
export class ZoneWatch {
  readonly #views = new Map<string, ZoneView>();
  readonly #listeners = new Set<ZoneChange>();
  readonly #deps: { client: ApiClient; clock: Clock; log: Logger };

  constructor(deps: { client: ApiClient; clock: Clock; log: Logger }) {
    this.#deps = deps;
  }

  get(name: string): ZoneView | undefined {
    return this.#views.get(name);
  }

  onChange(listener: ZoneChange): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        // No resourceVersion: the server first sends an ADDED for every zone, then live changes.
        const events = watchWithResume(this.#deps.client.zones, {
          allowWatchBookmarks: true,
          signal,
          clock: this.#deps.clock,
          log: this.#deps.log,
        });
        for await (const ev of events) {
          if (ev.type === 'BOOKMARK') continue;
          this.#set(ev.object.metadata.name, ev.type === 'DELETED' ? undefined : zoneViewOf(ev.object));
        }
      } catch (err) {
        if (signal.aborted || isAbortError(err)) return;
        this.#deps.log.warn({ err: String(err) }, `watching zones failed (${String(err)}); watching again in 2s`);
        await this.#deps.clock.sleep(2000, signal).catch(() => undefined);
      }
    }
  }

  #set(name: string, after: ZoneView | undefined): void {
    const before = this.#views.get(name);
    if (after === undefined) this.#views.delete(name);
    else this.#views.set(name, after);
    for (const l of this.#listeners) l(name, before, after);
  }
}
