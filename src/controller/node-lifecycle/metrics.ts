import { Counter, Gauge, Histogram, Registry } from 'prom-client';

const LIVE_PREFIX = 'shepherd_node_lifecycle_';
/** The dry-run controller's metrics (docs/verdicts.md#dry-run), so it can share a registry with the live one. */
const DRY_RUN_PREFIX = 'shepherd_node_lifecycle_dry_run_';

/**
 * The controller's Prometheus metrics (upstream's `node_collector` names, prefixed). Registered on the registry
 * the caller passes, or on a private one: never on prom-client's global registry (no module-level state).
 */
export class NodeLifecycleMetrics {
  readonly registry: Registry;
  readonly zoneHealth: Gauge<'zone'>;
  readonly zoneSize: Gauge<'zone'>;
  readonly unhealthyNodes: Gauge<'zone'>;
  readonly taintsAdded: Counter<'zone'>;
  readonly passDuration: Histogram;
  readonly masterDisruption: Gauge;
  readonly breakerTrips: Counter;
  readonly breakerHolding: Gauge;
  readonly verdicts: Counter<'action' | 'reason'>;
  /** docs/node-lifecycle.md#suspect and #flap-damping. */
  readonly suspectNodes: Gauge<'zone'>;
  /** docs/node-lifecycle.md#suspect-writes-in-chunks: Suspect changes a pass left to the next for lack of time. */
  readonly suspectDeferred: Counter;
  readonly flappingNodes: Gauge;
  readonly #suspectZones = new Set<string>();
  readonly #zones = new Set<string>();

  constructor(registry?: Registry, options: { dryRun?: boolean } = {}) {
    this.registry = registry ?? new Registry();
    const registers = [this.registry];
    const PREFIX = options.dryRun ? DRY_RUN_PREFIX : LIVE_PREFIX;
    this.zoneHealth = new Gauge({
      name: `${PREFIX}zone_health`,
      help: 'Percentage of Ready nodes in the zone (0-100).',
      labelNames: ['zone'],
      registers,
    });
    this.zoneSize = new Gauge({
      name: `${PREFIX}zone_size`,
      help: 'Nodes counted in the zone (excluded nodes are not counted).',
      labelNames: ['zone'],
      registers,
    });
    this.unhealthyNodes = new Gauge({
      name: `${PREFIX}unhealthy_nodes_in_zone`,
      help: 'Counted nodes in the zone whose Ready condition is not True.',
      labelNames: ['zone'],
      registers,
    });
    this.taintsAdded = new Counter({
      name: `${PREFIX}taints_added_total`,
      help: 'NoExecute taints added through the zone rate limiter (upstream evictions_total).',
      labelNames: ['zone'],
      registers,
    });
    this.passDuration = new Histogram({
      name: `${PREFIX}monitor_pass_duration_seconds`,
      help: 'Duration of one monitor pass (evaluation, zones, tainting).',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.masterDisruption = new Gauge({
      name: `${PREFIX}master_disruption`,
      help: '1 while every zone is FullDisruption and tainting is stopped.',
      registers,
    });
    this.breakerTrips = new Counter({
      name: `${PREFIX}circuit_breaker_trips_total`,
      help: 'Passes abandoned because a live lease check disagreed with the cache or failed.',
      registers,
    });
    this.breakerHolding = new Gauge({
      name: `${PREFIX}circuit_breaker_holding`,
      help: '1 while the lease circuit breaker holds node health evaluation.',
      registers,
    });
    this.verdicts = new Counter({
      name: `${PREFIX}verdicts_total`,
      help: 'Verdicts recorded (one per decision about a node), by action and reason (docs/verdicts.md).',
      labelNames: ['action', 'reason'],
      registers,
    });
    this.suspectNodes = new Gauge({
      name: `${PREFIX}suspect_nodes_in_zone`,
      help: 'Nodes in the zone whose condition Suspect is True (missed renewals, not yet past the grace).',
      labelNames: ['zone'],
      registers,
    });
    this.suspectDeferred = new Counter({
      name: `${PREFIX}suspect_writes_deferred_total`,
      help: 'Suspect changes a pass decided but left to the next pass: its Suspect writes had used their time budget (one monitor period).',
      registers,
    });
    this.flappingNodes = new Gauge({
      name: `${PREFIX}flapping_nodes`,
      help: 'Nodes the flap damper judges flapping (tainted shepherd.io/flapping:NoSchedule).',
      registers,
    });
  }

  /** Suspect nodes per zone for one pass; zones without any lose their series. */
  setSuspect(byZone: ReadonlyMap<string, number>): void {
    for (const [zone, n] of byZone) this.suspectNodes.set({ zone }, n);
    for (const zone of this.#suspectZones) if (!byZone.has(zone)) this.suspectNodes.remove({ zone });
    this.#suspectZones.clear();
    for (const zone of byZone.keys()) this.#suspectZones.add(zone);
  }

  /** Zone gauges for one pass; zones no longer present lose their series. */
  setZones(zones: ReadonlyArray<{ zone: string; nodes: number; notReady: number }>): void {
    const seen = new Set<string>();
    for (const z of zones) {
      seen.add(z.zone);
      this.zoneSize.set({ zone: z.zone }, z.nodes);
      this.unhealthyNodes.set({ zone: z.zone }, z.notReady);
      this.zoneHealth.set({ zone: z.zone }, z.nodes === 0 ? 100 : ((z.nodes - z.notReady) * 100) / z.nodes);
    }
    for (const zone of this.#zones) {
      if (seen.has(zone)) continue;
      this.zoneSize.remove({ zone });
      this.unhealthyNodes.remove({ zone });
      this.zoneHealth.remove({ zone });
    }
    this.#zones.clear();
    for (const z of seen) this.#zones.add(z);
  }
}
