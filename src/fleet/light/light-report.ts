import { formatTotals, type Totals } from '../fleet-report.js';
import type { RenewPhase } from './light-fleet.js';
import { opFigures, type LightWindow, type OpFigures } from './light-stats.js';

/** The light fleet's `mark` totals: agent mode's fields, what it should have done, per-operation latency, its cost. */
export interface LightTotals extends Totals {
  /** Renewals a second the renewing nodes owe at their interval (each node one per quarter lease duration). */
  expectedRenewalsPerSecond: number;
  ops: OpFigures[];
  /** The simulator's own CPU (user + system) over the window, per successful renewal, in µs. */
  cpuMicrosPerRenewal: number;
  /** The simulator's own CPU over the window, in cores. */
  fleetCpuCores: number;
  /** When each node first renewed after registering: at a random phase or one interval after (RenewPhase). */
  renewPhase: RenewPhase;
}

const round = (v: number): number => Math.round(v * 100) / 100;

export function lightTotalsOf(
  base: Totals,
  w: LightWindow,
  renewing: number,
  intervalMs: number,
  cpuMicros: number,
  renewPhase: RenewPhase,
): LightTotals {
  return {
    ...base,
    mode: 'light',
    expectedRenewalsPerSecond: round((renewing * 1000) / intervalMs),
    ops: opFigures(w),
    cpuMicrosPerRenewal: round(base.renewals > 0 ? cpuMicros / base.renewals : 0),
    fleetCpuCores: round(base.seconds > 0 ? cpuMicros / 1e6 / base.seconds : 0),
    renewPhase,
  };
}

/** The sentence and JSON line of agent mode (bench/fleet-capacity.ts reads the JSON), then one line per operation. */
export function formatLightTotals(t: LightTotals): string {
  const ops = t.ops.map((o) => `    ${o.op}: ${o.count} answered, p50 ${o.p50Ms}ms p99 ${o.p99Ms}ms max ${o.maxMs}ms`);
  const head =
    `light mode: ${t.renewalsPerSecond.toFixed(0)} renewals/s of ${t.expectedRenewalsPerSecond.toFixed(0)}/s expected, ` +
    `simulator CPU ${t.cpuMicrosPerRenewal.toFixed(1)} µs per renewal (${t.fleetCpuCores.toFixed(2)} cores), ` +
    `${t.renewPhase} renewal phase`;
  return [head, ...ops, formatTotals(t)].join('\n');
}
