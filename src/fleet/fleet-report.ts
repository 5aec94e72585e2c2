import type { AgentLogWindow } from './agent-log.js';
import type { ZoneCounts } from './fleet.js';
import type { RequestStats } from './instrumented-client.js';
import type { StateCounts } from './node-watch.js';

export interface ReportInput {
  elapsedMs: number;
  /** Length of the window `stats` covers. */
  windowMs: number;
  stats: RequestStats;
  fleet: ZoneCounts[];
  /** Undefined until the node watch has listed once. */
  server: StateCounts | undefined;
  wrongUnknown: number;
  agentLog: AgentLogWindow;
}

function ms(v: number): string {
  return v >= 100 ? `${v.toFixed(0)}ms` : `${v.toFixed(1)}ms`;
}

export function formatElapsed(ms: number): string {
  return `+${(ms / 1000).toFixed(1)}s`;
}

function errorsText(stats: RequestStats): string {
  if (stats.errors === 0) return 'errors 0';
  const by = [...stats.errorsByReason].sort(([a], [b]) => a.localeCompare(b)).map(([r, n]) => `${r} ${n}`);
  return `errors ${stats.errors} (${by.join(', ')})`;
}

/** One live report line: what the agents did in the last window and what the server shows now. */
export function formatReport(r: ReportInput): string {
  const total = r.fleet.reduce((a, z) => a + z.nodes, 0);
  const running = r.fleet.reduce((a, z) => a + z.running, 0);
  const queued = r.fleet.reduce((a, z) => a + z.queued, 0);
  const stopped = r.fleet.reduce((a, z) => a + z.stopped, 0);
  const perSecond = r.windowMs > 0 ? (r.stats.renewals * 1000) / r.windowMs : 0;
  const lat = r.stats.renewalLatency;
  const parts = [
    `${formatElapsed(r.elapsedMs)}  agents ${running}/${total} running (${queued} starting, ${stopped} stopped)`,
    `renewals ${perSecond.toFixed(0)}/s p50 ${ms(lat.quantile(0.5))} p99 ${ms(lat.quantile(0.99))}`,
    errorsText(r.stats),
    r.server === undefined
      ? 'server: listing nodes…'
      : `server: Ready ${r.server.True} Unknown ${r.server.Unknown} NotReady ${r.server.False} no-status ${r.server.None} tainted ${r.server.tainted}`,
    `wrongly Unknown ${r.wrongUnknown}`,
  ];
  const log =
    r.agentLog.warn + r.agentLog.error > 0
      ? `\n    agent log: ${r.agentLog.warn} warn, ${r.agentLog.error} error; last: ${r.agentLog.last ?? ''}`
      : '';
  return parts.join(' | ') + log;
}

/** Per-zone lines for `status`. */
export function formatZones(fleet: ZoneCounts[]): string {
  return fleet
    .map((z) => `    ${z.zone}: ${z.running}/${z.nodes} running, ${z.queued} starting, ${z.stopped} stopped`)
    .join('\n');
}

export interface Totals {
  /** Which simulator ran: full agents (`agent`, the default) or the light load generator (`light`). */
  mode: 'agent' | 'light';
  seconds: number;
  renewals: number;
  renewalsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  conflicts: number;
  wrongUnknown: number;
  wrongUnknownExamples: string[];
  running: number;
  serverReady: number | undefined;
}

export function totalsOf(
  stats: RequestStats,
  seconds: number,
  wrongUnknown: number,
  examples: string[],
  running: number,
  serverReady: number | undefined,
): Totals {
  const lat = stats.renewalLatency;
  const round = (v: number): number => Math.round(v * 100) / 100;
  return {
    mode: 'agent',
    seconds: round(seconds),
    renewals: stats.renewals,
    renewalsPerSecond: round(seconds > 0 ? stats.renewals / seconds : 0),
    p50Ms: round(lat.quantile(0.5)),
    p99Ms: round(lat.quantile(0.99)),
    maxMs: round(lat.max),
    errors: stats.errors,
    conflicts: stats.conflicts,
    wrongUnknown,
    wrongUnknownExamples: [...examples],
    running,
    serverReady,
  };
}

/** The `mark` answer: a sentence for people and one JSON line for scripts (bench/fleet-capacity.ts reads it). */
export function formatTotals(t: Totals): string {
  return (
    `totals over ${t.seconds.toFixed(1)}s (${t.mode} mode): ${t.renewals} renewals (${t.renewalsPerSecond.toFixed(0)}/s), p50 ${ms(t.p50Ms)} p99 ${ms(t.p99Ms)} max ${ms(t.maxMs)}, ` +
    `errors ${t.errors}, conflicts ${t.conflicts}, wrongly Unknown ${t.wrongUnknown}${t.wrongUnknownExamples.length ? ` (${t.wrongUnknownExamples.join(', ')})` : ''}\n` +
    `totals-json ${JSON.stringify(t)}`
  );
}
