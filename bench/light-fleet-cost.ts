// The light fleet's own CPU per renewal (target ≤ ~20 µs, BENCHMARKS.md "Scale round 2"): `shepherd --mode fleet
// --simulator light` against bench/stub-api-server.ts (a separate process that stores nothing), so the figure is
// the simulator's alone. N nodes renewing every quarter of --lease-duration; after every node holds its lease,
// one `mark` window; the fleet prints its CPU (process.cpuUsage) per renewal, cross-checked here from /proc.
//   node --import tsx bench/light-fleet-cost.ts [--nodes 20000] [--lease-duration 8s] [--settle 10] [--window 30]
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { eventually } from '../test/support/eventually.js';
import { ROOT, spawnListening } from './lib.js';
import { machine, procSample } from './proc-stats.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '20000' },
    'lease-duration': { type: 'string', default: '8s' },
    window: { type: 'string', default: '30' },
    settle: { type: 'string', default: '10' },
  },
});
const n = Number(values.nodes);
const windowS = Number(values.window);
const leaseS = Number.parseFloat(values['lease-duration']);
const header = machine();
const stub = await spawnListening(['--import', 'tsx', 'bench/stub-api-server.ts'], 'stub API server');
const fleet = spawn(
  process.execPath,
  [
    'bin/shepherd',
    '--mode',
    'fleet',
    '--simulator',
    'light',
    '--nodes',
    String(n),
    '--zones',
    '3',
    '--api-addr',
    new URL(stub.url).host,
    '--lease-duration',
    values['lease-duration'],
    '--start-rate',
    '5000',
    '--report-interval',
    '5s',
    '--log-level',
    'warn',
  ],
  { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
);
let out = '';
fleet.stdout.on('data', (b: Buffer) => (out += b.toString()));
try {
  // Renewing nodes, from the live report's "N/s expected" (one renewal per node per quarter lease).
  const renewing = (): number =>
    (Number([...out.matchAll(/light mode, (\d+)\/s expected/g)].at(-1)?.[1] ?? 0) * leaseS) / 4;
  await eventually(() => renewing() >= n * 0.99, {
    what: 'every node renewing',
    timeoutMs: 180_000,
    intervalMs: 500,
    last: () => out.slice(-500),
  });
  // Registration's status posts and lease creations end with the ramp; the window measures renewals alone.
  await new Promise((r) => setTimeout(r, Number(values.settle) * 1000));
  // The window starts once the fleet has answered the first mark (not when the command is written).
  const totals = (): string[] => [...out.matchAll(/totals-json (\{.*\})\n/g)].map((m) => m[1] as string);
  const marks = totals().length;
  fleet.stdin.write('mark\n');
  await eventually(() => totals().length > marks, { what: 'the first mark', intervalMs: 20 });
  const p0 = procSample(fleet.pid as number);
  await new Promise((r) => setTimeout(r, windowS * 1000));
  const p1 = procSample(fleet.pid as number);
  fleet.stdin.write('mark\n');
  const json = await eventually(() => (totals().length > marks + 1 ? totals().at(-1) : undefined), {
    what: 'the second mark',
    timeoutMs: 30_000,
  });
  const t = JSON.parse(json) as {
    renewals: number;
    renewalsPerSecond: number;
    expectedRenewalsPerSecond: number;
    cpuMicrosPerRenewal: number;
    p99Ms: number;
    errors: number;
  };
  const procMicros = ((p1.cpuS - p0.cpuS) * 1e6) / t.renewals;
  console.log(`Light fleet cost (${header})\n`);
  console.log(
    '| nodes | renewals/s (expected) | fleet µs CPU per renewal (process.cpuUsage) | same from /proc | renewal p99 ms | errors |',
  );
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| ${n} | ${t.renewalsPerSecond.toFixed(0)} (${t.expectedRenewalsPerSecond.toFixed(0)}) | ${t.cpuMicrosPerRenewal.toFixed(1)} | ${procMicros.toFixed(1)} | ${t.p99Ms} | ${t.errors} |`,
  );
} finally {
  fleet.stdin.end('quit\n');
  await new Promise((r) => (fleet.exitCode !== null ? r(undefined) : fleet.once('exit', r)));
  await stub.stop();
}
