import {
  ANNOTATION_CIRCUIT_BREAKER,
  ANNOTATION_MASTER_DISRUPTION,
  ANNOTATION_SETTINGS,
  ANNOTATION_TAINT_QUEUE,
  parseJsonAnnotation,
  type NodeLifecycleSettings,
  type TaintQueueNote,
} from '../core/zone-annotations.js';
import type { Zone } from '../core/zone.js';
import { CliError, type CliDeps } from './cli-context.js';
import { formatFields } from './describe.js';
import { encodeObject } from './output.js';
import { clockTime, rate } from '../core/verdict-format.js';

/** What `sheepctl explain zone NAME` says, as data. */
export interface ZoneExplanation {
  zone: string;
  summary: string;
  status: Zone['status'];
  /** The controller's settings that decide this zone (absent from a controller that does not publish them). */
  settings?: NodeLifecycleSettings;
  thresholds?: {
    /** Not-Ready nodes at which this zone becomes PartialDisruption (undefined: never, it is too small). */
    partialDisruptionAt?: number;
    /** Larger than --large-cluster-size-threshold: keeps tainting at the secondary rate when partially disrupted. */
    large: boolean;
    rates: { Normal: number; PartialDisruption: number; FullDisruption: number };
  };
  queue: TaintQueueNote;
  masterDisruption: boolean;
  breaker?: string;
}

/**
 * The fewest not-Ready nodes that make a zone of `nodes` PartialDisruption: more than 2, and at least the
 * unhealthy fraction, compared in float32 as the controller does (docs/node-lifecycle.md#zone-states).
 */
export function partialDisruptionAt(nodes: number, threshold: number): number | undefined {
  for (let n = 3; n < nodes; n++)
    if (Math.fround(Math.fround(n) / Math.fround(nodes)) >= Math.fround(threshold)) return n;
  return undefined;
}

/** The explanation of a Zone object (docs/verdicts.md#explain). Pure. */
export function explainZone(z: Zone, zones: readonly Zone[]): ZoneExplanation {
  const a = z.metadata.annotations ?? {};
  const any = (key: string): string | undefined =>
    zones.map((x) => x.metadata.annotations?.[key]).find((v) => v !== undefined && v !== '') ?? a[key];
  const settings = parseJsonAnnotation<NodeLifecycleSettings>(a[ANNOTATION_SETTINGS]);
  const queue = parseJsonAnnotation<TaintQueueNote>(a[ANNOTATION_TAINT_QUEUE]) ?? { length: 0, next: [] };
  const master = any(ANNOTATION_MASTER_DISRUPTION) === 'true';
  const breaker = any(ANNOTATION_CIRCUIT_BREAKER);
  const s = z.status;
  const out: ZoneExplanation = {
    zone: z.metadata.name,
    summary: '',
    status: s,
    queue,
    masterDisruption: master,
    ...(breaker ? { breaker } : {}),
  };
  if (settings) {
    const large = s.nodes > settings.largeClusterSizeThreshold;
    const at = partialDisruptionAt(s.nodes, settings.unhealthyZoneThreshold);
    out.settings = settings;
    out.thresholds = {
      ...(at === undefined ? {} : { partialDisruptionAt: at }),
      large,
      rates: {
        Normal: settings.nodeEvictionRate,
        PartialDisruption: large ? settings.secondaryNodeEvictionRate : 0,
        FullDisruption: settings.nodeEvictionRate,
      },
    };
  }
  let summary = `Zone ${z.metadata.name} is ${s.state}: ${s.notReady} of ${s.nodes} nodes not Ready; NoExecute taints at ${rate(s.evictionRate)}`;
  if (master) summary += ', held: every zone is FullDisruption (master disruption)';
  else if (breaker) summary += `, held by the lease circuit breaker (${breaker.replace(/^holding: /, '')})`;
  out.summary = `${summary}; ${queue.length} node(s) wait for a NoExecute taint.`;
  return out;
}

export function formatZoneExplanation(e: ZoneExplanation, now: number): string {
  const fields: Array<[string, string | string[]]> = [];
  const st = e.settings;
  const th = e.thresholds;
  if (st && th) {
    fields.push([
      'PartialDisruption',
      th.partialDisruptionAt === undefined
        ? `never at ${e.status.nodes} nodes (needs more than 2 not Ready and a fraction of ${st.unhealthyZoneThreshold})`
        : `from ${th.partialDisruptionAt} of ${e.status.nodes} not Ready (more than 2, and a fraction of ${st.unhealthyZoneThreshold} or more)`,
    ]);
    fields.push(['FullDisruption', `when none of its ${e.status.nodes} nodes is Ready`]);
    fields.push([
      'Rates',
      `Normal ${rate(th.rates.Normal)}, PartialDisruption ${rate(th.rates.PartialDisruption)} (${th.large ? 'larger' : 'not larger'} than ${st.largeClusterSizeThreshold} nodes), FullDisruption ${rate(th.rates.FullDisruption)}`,
    ]);
    fields.push([
      'Grace',
      `${st.nodeMonitorGracePeriodSeconds}s (startup ${st.nodeStartupGracePeriodSeconds}s), a pass every ${st.nodeMonitorPeriodSeconds}s`,
    ]);
  } else fields.push(['Settings', '<unknown> (the controller does not publish them on this Zone object)']);
  const shown = e.queue.next.map((q) => `${q.node}${q.at ? ` (about ${clockTime(q.at, now)})` : ' (no ETA: rate 0)'}`);
  if (e.queue.length > shown.length) shown.push(`… ${e.queue.length - shown.length} more`);
  fields.push(['Queue', e.queue.length === 0 ? '<none>' : shown]);
  fields.push([
    'Master disruption',
    e.masterDisruption
      ? 'yes: every zone is FullDisruption, so the controller lifted every NoExecute taint and stopped tainting until a zone recovers'
      : 'no',
  ]);
  fields.push(['Circuit breaker', e.breaker === undefined ? 'closed' : e.breaker]);
  return `${e.summary}\n\n${formatFields(fields, '  ')}`;
}

/** `sheepctl explain zone NAME [-o json|yaml]`. */
export async function runExplainZone(deps: CliDeps, name: string, output: 'text' | 'json' | 'yaml'): Promise<number> {
  const opts = deps.signal ? { signal: deps.signal } : {};
  const zones = (await deps.client.zones.list(opts)).items;
  const zone = zones.find((z) => z.metadata.name === name);
  if (!zone) {
    const known = zones.map((z) => z.metadata.name).join(', ') || 'none yet';
    throw new CliError(
      `zone "${name}" not found (zones: ${known}); zones appear once the controller counts their nodes`,
    );
  }
  const e = explainZone(zone, zones);
  deps.out.write(output === 'text' ? formatZoneExplanation(e, deps.now()) : encodeObject(output, e));
  return 0;
}
