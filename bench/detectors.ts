/**
 * Failure detectors on synthetic heartbeat traces (BENCHMARKS.md, detectors): the controller's REAL detection code
 * (src/controller/node-lifecycle/detector.ts: the phi window and its bounds; node-health.ts: the expiry rule) replayed
 * on a simulated clock, a monitor pass every 5 s that observes the renewals that reached the API since the last one,
 * as the controller does. CPU only and deterministic: the traces come from bench/heartbeat-traces.ts with a seed.
 *
 *   npm run bench:detectors -- [--hours 12] [--nodes 100] [--deaths 250] [--seed 1]
 *
 * For each detector: how long after a real death the node is marked Unknown (median, p99; deaths at a uniform
 * random time in [30 min, 3 h] of a 3 h trace, `--deaths` per trace kind), and false Unknowns (a node marked that
 * renews again) per 1,000 node-hours (`--nodes` per trace kind living `--hours`, plus the dying traces before they
 * die).
 */
import { parseArgs } from 'node:util';
import {
  defaultDetectionConfig,
  detectionTimings,
  newDetection,
  updateDetection,
  type DetectionConfig,
} from '../src/controller/node-lifecycle/detector.js';
import { isExpired, monitorGraceOf, type NodeHealth } from '../src/controller/node-lifecycle/node-health.js';
import { seededRandom } from '../src/core/random.js';
import { makeTrace, TRACE_KINDS, type Trace, type TraceKind } from './heartbeat-traces.js';
import { machine } from './proc-stats.js';

const { values } = parseArgs({
  options: {
    hours: { type: 'string', default: '12' },
    nodes: { type: 'string', default: '100' },
    deaths: { type: 'string', default: '250' },
    seed: { type: 'string', default: '1' },
  },
});
const HOURS = Number(values.hours);
const NODES = Number(values.nodes);
const DEATHS = Number(values.deaths);
const SEED = Number(values.seed);
const PERIOD_MS = 5_000;
const LEASE_SECONDS = 40;
const H = 3_600_000;

interface Detector {
  name: string;
  graceMs: number;
  detection: DetectionConfig;
}

const DETECTORS: Detector[] = [
  { name: 'fixed 50 s', graceMs: 50_000, detection: defaultDetectionConfig },
  { name: 'fixed 20 s', graceMs: 20_000, detection: defaultDetectionConfig },
  ...[8, 10, 12].map((phiThreshold) => ({
    name: `phi ${phiThreshold}`,
    graceMs: 50_000,
    detection: { ...defaultDetectionConfig, failureDetector: 'phi' as const, phiThreshold },
  })),
  // What the minimum grace costs: phi with a lower floor.
  {
    name: 'phi 8, --phi-min-grace 15s',
    graceMs: 50_000,
    detection: { ...defaultDetectionConfig, failureDetector: 'phi' as const, phiMinGraceMs: 15_000 },
  },
  // Akka's answer to pauses a normal distribution cannot predict: an acceptable pause added to the mean.
  ...[10_000, 20_000].map((phiAcceptablePauseMs) => ({
    name: `phi 8, --phi-acceptable-pause ${phiAcceptablePauseMs / 1000}s`,
    graceMs: 50_000,
    detection: { ...defaultDetectionConfig, failureDetector: 'phi' as const, phiAcceptablePauseMs },
  })),
];

interface Outcome {
  /** Death → Unknown, ms (undefined: never marked within the trace). */
  detectionMs: number | undefined;
  falseUnknowns: number;
  liveMs: number;
}

/**
 * One node through the controller's passes: observe (a renewal arrived since the last pass: probe = now), judge
 * (`isExpired` against `monitorGraceOf`: the grace, or phi's bounded one), then learn (`updateDetection`), in the
 * order of a real pass (src/controller/node-lifecycle/node-lifecycle-controller.ts).
 */
function replay(trace: Trace, d: Detector, endMs: number, phase: number): Outcome {
  const timings = { nodeMonitorGracePeriodMs: d.graceMs, nodeStartupGracePeriodMs: 60_000 };
  const dt = detectionTimings(d.detection, PERIOD_MS, d.graceMs);
  const health: NodeHealth = { probeTimestamp: phase, readyTransitionTimestamp: phase, status: {}, lease: undefined };
  health.detection = newDetection(phase);
  let next = 0;
  let unknown = false;
  let falseUnknowns = 0;
  let detectionMs: number | undefined;
  for (let now = phase; now <= endMs; now += PERIOD_MS) {
    let renewed = false;
    while (next < trace.arrivals.length && (trace.arrivals[next] as number) <= now) {
      next++;
      renewed = true;
    }
    if (renewed) {
      health.probeTimestamp = now;
      unknown = false;
    }
    if (!unknown && isExpired(health, monitorGraceOf(health, timings), now)) {
      unknown = true;
      if (next < trace.arrivals.length) falseUnknowns++;
      else if (trace.diedAt !== undefined) {
        detectionMs = now - trace.diedAt;
        break;
      }
    }
    updateDetection(health.detection, health.probeTimestamp, LEASE_SECONDS, dt);
  }
  return { detectionMs, falseUnknowns, liveMs: trace.diedAt ?? endMs };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

const s = (ms: number): string => (Number.isNaN(ms) ? '—' : `${(ms / 1000).toFixed(1)} s`);

interface Row {
  detector: string;
  median: number;
  p99: number;
  missed: number;
  falsePerK: number;
  byKind: Map<TraceKind, { median: number; falsePerK: number }>;
}

function run(d: Detector): Row {
  const r = seededRandom(SEED * 7919);
  const deaths: number[] = [];
  const byKind = new Map<TraceKind, { median: number; falsePerK: number }>();
  let falseTotal = 0;
  let liveTotal = 0;
  let missed = 0;
  TRACE_KINDS.forEach((kind, k) => {
    let falseKind = 0;
    let liveKind = 0;
    const kindDeaths: number[] = [];
    for (let i = 0; i < NODES; i++) {
      const trace = makeTrace(kind, SEED * 1_000_003 + k * 100_000 + i, HOURS * H);
      const o = replay(trace, d, HOURS * H, r.next() * PERIOD_MS);
      falseKind += o.falseUnknowns;
      liveKind += o.liveMs;
    }
    for (let i = 0; i < DEATHS; i++) {
      const diedAt = 0.5 * H + r.next() * 2.5 * H;
      const trace = makeTrace(kind, SEED * 2_000_003 + k * 100_000 + i, 3 * H + 120_000, diedAt);
      const o = replay(trace, d, 3 * H + 120_000, r.next() * PERIOD_MS);
      falseKind += o.falseUnknowns;
      liveKind += o.liveMs;
      if (o.detectionMs === undefined) missed++;
      else kindDeaths.push(o.detectionMs);
    }
    kindDeaths.sort((a, b) => a - b);
    deaths.push(...kindDeaths);
    byKind.set(kind, { median: quantile(kindDeaths, 0.5), falsePerK: (falseKind * 1000 * H) / liveKind });
    falseTotal += falseKind;
    liveTotal += liveKind;
  });
  deaths.sort((a, b) => a - b);
  return {
    detector: d.name,
    median: quantile(deaths, 0.5),
    p99: quantile(deaths, 0.99),
    missed,
    falsePerK: (falseTotal * 1000 * H) / liveTotal,
    byKind,
  };
}

const started = Date.now();
const startedOn = machine();
const rows = DETECTORS.map(run);
const base = rows[0] as Row;
console.log(
  `\n${NODES} living nodes per trace kind for ${HOURS} h, ${DEATHS} deaths per kind; seed ${SEED}; ${startedOn}\n`,
);
console.log(
  '| detector | death → Unknown median | p99 | × faster than fixed 50 s (median) | false Unknowns / 1,000 node-hours | ' +
    TRACE_KINDS.map((k) => `${k}: median, false/1k h`).join(' | ') +
    ' |',
);
console.log(`|---|---|---|---|---|${TRACE_KINDS.map(() => '---').join('|')}|`);
for (const row of rows) {
  const kinds = TRACE_KINDS.map((k) => {
    const v = row.byKind.get(k);
    return v ? `${s(v.median)}, ${v.falsePerK.toFixed(2)}` : '—';
  });
  console.log(
    `| ${row.detector} | ${s(row.median)} | ${s(row.p99)} | ${(base.median / row.median).toFixed(2)} | ${row.falsePerK.toFixed(2)}${row.missed ? ` (${row.missed} deaths missed)` : ''} | ${kinds.join(' | ')} |`,
  );
}
console.log(`\n${((Date.now() - started) / 1000).toFixed(1)} s`);
