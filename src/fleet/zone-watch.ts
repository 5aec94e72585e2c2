import type { ApiClient } from '../client/api-client.js';
import { ANNOTATION_MASTER_DISRUPTION, type Zone, type ZoneState } from '../core/zone.js';
import { ViewWatch, type ViewChange, type ViewWatchDeps } from './view-watch.js';

export interface ZoneView {
  state: ZoneState;
  evictionRate: number;
  nodes: number;
  notReady: number;
  masterDisruption: boolean;
}

export type ZoneChange = ViewChange<ZoneView>;

export function zoneViewOf(zone: Zone): ZoneView {
  return {
    ...zone.status,
    masterDisruption: zone.metadata.annotations?.[ANNOTATION_MASTER_DISRUPTION] === 'true',
  };
}

/** The controller's Zone objects (GET /api/v1/zones), kept current by a watch: zone states as they happen. */
export class ZoneWatch extends ViewWatch<Zone, ZoneView> {
  constructor(deps: { client: ApiClient } & ViewWatchDeps) {
    super('zones', deps.client.zones, zoneViewOf, undefined, deps);
  }
}
