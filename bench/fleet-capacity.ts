// Benchmark 2 (BENCHMARKS.md): the largest fleet one server holds at default cadence (10 s renewals) with renewal
// p99 ≤ 100 ms and no node wrongly marked Unknown over the window, the simulator on the same machine.
//   npm run bench:fleet -- [--nodes 10000,25000,50000] [--window 120] [--start-rate 800] [--settle 20]
//                          [--simulator light|agent] [--renew-phase random|start] [--profile]
//                          [--server-node-options="--max-semi-space-size=64"] [--server-flags="--watch-history 10m"]
// Steps N up on a fresh server each time and stops at the first N that misses the target. The light simulator
// (docs/fleet.md#light-mode) is the default: the full agents cost ~0.4 ms of CPU per renewal on the same cores.
// Its nodes first renew at a random phase (--renew-phase random); `start` keeps the start pacing's bursts.
// The server's event-loop delay over the window comes from its /metrics (shepherd_event_loop_delay_*).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { eventually } from '../test/support/eventually.js';
import { ROOT, spawnListening } from './lib.js';
import { cpuShare, machine, procSample } from './proc-stats.js';
import { layersTable, readProfile, summariseLayers } from './profile-layers.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000,2000,5000,10000,25000,50000' },
    window: { type: 'string', default: '120' },
    'start-rate': { type: 'string', default: '800' },
    settle: { type: 'string', default: '20' },
    zones: { type: 'string', default: '3' },
    simulator: { type: 'string', default: 'light' },
    // The light simulator's first-renewal phase (docs/fleet.md#light-mode); agent mode ignores it.
    'renew-phase': { type: 'string', default: 'random' },
    // Extra Node options for the server process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a step.
    'server-node-options': { type: 'string', default: '' },
    // Extra shepherd server flags, e.g. "--watch-history 10m".
    'server-flags': { type: 'string', default: '' },
    // The server's main-thread time per renewal by layer, over each step's window (bench/profile-layers.ts).
    profile: { type: 'boolean', default: false },
  },
});
const steps = values.nodes.split(',').map(Number);
const windowS = Number(values.window);
const settleS = Number(values.settle);

interface Totals {
  mode?: string;
  renewPhase?: string;
  expectedRenewalsPerSecond?: number;
  cpuMicrosPerRenewal?: number;
  renewals: number;
  renewalsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  wrongUnknown: number;
  running: number;
  serverReady: number;
}
interface StepResult {
  n: number;
  registerS: number;
  totals: Totals;
  serverCpu: number;
  fleetCpu: number;
  serverRssMb: number;
  loop: LoopDelay | undefined;
  /** The server's GC pauses over the window, by kind. */
  gc: string;
  /** The store's commits over the window: rate, writes per commit, time per commit (main thread, incl. fsync). */
  commits: string;
  /** The renewals' latency as the server measured it (fastify: request received → response finished), ms. */
  serverLatency: string;
  ok: boolean;
}

/** The server's event-loop delay since its previous /metrics scrape (src/api/event-loop-delay.ts), in ms. */
interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** The server's /metrics page (each scrape also ends its event-loop delay window: src/api/event-loop-delay.ts). */
async function metricsText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

/** Garbage-collection pause seconds and counts so far, by kind (prom-client's nodejs_gc_duration_seconds). */
type GcTotals = Record<string, { seconds: number; count: number }>;

function gcTotals(text: string): GcTotals {
  const out: GcTotals = {};
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_(sum|count)\{kind="(\w+)"\} (\S+)$/gm)) {
    const kind = (out[m[2] as string] ??= { seconds: 0, count: 0 });
    if (m[1] === 'sum') kind.seconds = Number(m[3]);
    else kind.count = Number(m[3]);
  }
  return out;
}

/** Commits so far: how many, their seconds and their writes (the store's commit histograms). */
function commitTotals(text: string): { count: number; seconds: number; writes: number } {
  const g = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    count: g('shepherd_store_commit_duration_seconds_count'),
    seconds: g('shepherd_store_commit_duration_seconds_sum'),
    writes: g('shepherd_store_commit_batch_size_sum'),
  };
}

/** "412/s × 4.9 writes, 0.61 ms each": the store's commits between two samples. */
function commitSummary(
  a: { count: number; seconds: number; writes: number },
  b: { count: number; seconds: number; writes: number },
  windowS: number,
): string {
  const count = b.count - a.count;
  if (!(count > 0)) return '—';
  const perCommitMs = (1000 * (b.seconds - a.seconds)) / count;
  return `${(count / windowS).toFixed(0)}/s × ${((b.writes - a.writes) / count).toFixed(1)} writes, ${perCommitMs.toFixed(2)} ms each`;
}

/** The server's own renewal latency histogram so far: cumulative counts by bucket bound (seconds). */
function renewalBuckets(text: string): Map<number, number> {
  const out = new Map<number, number>();
  const re =
    /^http_request_duration_seconds_bucket\{le="([^"]+)",method="PUT",route="\/api\/v1\/leases\/:name",status_code="200"\} (\S+)$/gm;
  for (const m of text.matchAll(re)) out.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2]));
  return out;
}

/** "≤ 5 / ≤ 25 ms": the buckets holding the median and the 99th percentile of the renewals between two samples. */
function serverLatency(a: Map<number, number>, b: Map<number, number>): string {
  const bounds = [...b.keys()].sort((x, y) => x - y);
  const delta = bounds.map((le) => [le, (b.get(le) ?? 0) - (a.get(le) ?? 0)] as const);
  const total = delta.at(-1)?.[1] ?? 0;
  if (total <= 0) return '—';
  const at = (q: number): string => {
    const le = delta.find(([, n]) => n >= q * total)?.[0] ?? Infinity;
    return le === Infinity ? '> max' : `≤ ${le * 1000}`;
  };
  return `${at(0.5)} / ${at(0.99)}`;
}

/** "major 12 × 85 ms" per kind: the GC pauses between two samples. */
function gcSummary(a: GcTotals, b: GcTotals): string {
  return Object.entries(b)
    .map(([kind, t]) => {
      const count = t.count - (a[kind]?.count ?? 0);
      const ms = (1000 * (t.seconds - (a[kind]?.seconds ?? 0))) / Math.max(count, 1);
      return count > 0 ? `${kind} ${count} × ${ms.toFixed(1)} ms` : '';
    })
    .filter((x) => x !== '')
    .join(', ');
}

function loopDelay(text: string): LoopDelay | undefined {
  const g = (q: string): number =>
    Number(new RegExp(`^shepherd_event_loop_delay_${q}_seconds (\\S+)$`, 'm').exec(text)?.[1]) * 1000;
  const d = { p50: g('p50'), p99: g('p99'), max: g('max') };
  return Number.isNaN(d.max) ? undefined : d;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Complete `totals-json {…}` lines in out. */
function totalsLines(out: string): number {
  return [...out.matchAll(/totals-json (\{.*\})\n/g)].length;
}

/** The JSON of the last complete `totals-json {…}` line in out (undefined while it is still being written). */
function lastTotals(out: string): string | undefined {
  return [...out.matchAll(/totals-json (\{.*\})\n/g)].at(-1)?.[1];
}

/** Per step with --profile: the layer table of the server's window. */
const profiles: string[] = [];

async function step(n: number, dir: string): Promise<StepResult> {
  let profileWindow: { fromUs: number; toUs: number; renewals: number } | undefined;
  const profDir = join(dir, `prof-${n}`);
  const server = await spawnListening(
    [
      ...values['server-node-options'].split(' ').filter((a) => a !== ''),
      ...(values.profile ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []),
      'bin/shepherd',
      '--mode',
      'server',
      '--listen',
      '127.0.0.1:0',
      '--db',
      join(dir, `fleet-${n}.db`),
      '--log-level',
      'warn',
      ...values['server-flags'].split(' ').filter((a) => a !== ''),
    ],
    'shepherd',
  );
  const addr = new URL(server.url).host;
  const fleet = spawn(
    process.execPath,
    [
      '--max-old-space-size=8192',
      'bin/shepherd',
      '--mode',
      'fleet',
      '--simulator',
      values.simulator,
      ...(values.simulator === 'light' ? ['--renew-phase', values['renew-phase']] : []),
      '--nodes',
      String(n),
      '--zones',
      values.zones,
      '--api-addr',
      addr,
      '--start-rate',
      values['start-rate'],
      '--report-interval',
      '5s',
      '--log-level',
      'warn',
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let out = '';
  fleet.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  fleet.stderr.on('data', (b: Buffer) => process.stderr.write(`  fleet: ${b.toString()}`));
  const started = Date.now();
  try {
    // Registered: every agent running and the server showing every node Ready.
    const registered = await eventually(
      () => {
        if (fleet.exitCode !== null) return 'exited';
        const last = [...out.matchAll(/agents (\d+)\/(\d+) running.*server: Ready (\d+) Unknown (\d+)/g)].at(-1);
        return last !== undefined && Number(last[1]) === n && Number(last[3]) === n && 'ready';
      },
      {
        what: `N=${n}: every agent registered and every node Ready`,
        last: () => out.slice(-2000),
        timeoutMs: 15 * 60_000,
        intervalMs: 1000,
      },
    );
    if (registered === 'exited') throw new Error(`fleet exited early:\n${out.slice(-2000)}`);
    const registerS = (Date.now() - started) / 1000;
    process.stderr.write(
      `N=${n}: all registered and Ready after ${registerS.toFixed(0)}s; settling ${settleS}s, then measuring ${windowS}s\n`,
    );
    await sleep(settleS * 1000);
    // The window starts once the fleet has answered this mark: counting its totals lines right after writing
    // the command (as this bench did before) counts too few, and the "second" totals read after the window
    // were then this first mark's, i.e. registration and settling instead of the window.
    const marks = totalsLines(out);
    fleet.stdin.write('mark\n');
    await eventually(() => totalsLines(out) > marks, { what: 'the fleet answering the first mark', intervalMs: 20 });
    // One scrape at each end of the window; the first also starts the server's event-loop delay window.
    const before = await metricsText(server.url);
    const gc0 = gcTotals(before);
    const c0 = commitTotals(before);
    const l0 = renewalBuckets(before);
    const windowFromUs = Number(process.hrtime.bigint() / 1000n);
    const s0 = procSample(server.child.pid as number);
    const f0 = procSample(fleet.pid as number);
    await sleep(windowS * 1000);
    const s1 = procSample(server.child.pid as number);
    const f1 = procSample(fleet.pid as number);
    const windowToUs = Number(process.hrtime.bigint() / 1000n);
    const after = await metricsText(server.url);
    const loop = loopDelay(after);
    const gc = gcSummary(gc0, gcTotals(after));
    const commits = commitSummary(c0, commitTotals(after), windowS);
    const latency = serverLatency(l0, renewalBuckets(after));
    fleet.stdin.write('mark\n');
    const json = await eventually(() => (totalsLines(out) > marks + 1 ? lastTotals(out) : undefined), {
      what: 'the fleet printing its second totals-json line',
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    const totals = JSON.parse(json) as Totals;
    const ok = totals.p99Ms <= 100 && totals.wrongUnknown === 0 && totals.errors === 0 && totals.serverReady === n;
    const r = {
      n,
      registerS,
      totals,
      serverCpu: cpuShare(s0, s1, windowS),
      fleetCpu: cpuShare(f0, f1, windowS),
      serverRssMb: s1.rssMb,
      loop,
      gc,
      commits,
      serverLatency: latency,
      ok,
    };
    process.stderr.write(`N=${n}: ${JSON.stringify(r)}\n`);
    profileWindow = { fromUs: windowFromUs, toUs: windowToUs, renewals: totals.renewals };
    return r;
  } finally {
    fleet.stdin.end('quit\n');
    await new Promise((r) => (fleet.exitCode !== null ? r(undefined) : fleet.once('exit', r)));
    await server.stop(); // SIGTERM: the server exits cleanly and writes its profile
    if (values.profile && profileWindow !== undefined) {
      const rows = summariseLayers(
        readProfile(profDir),
        profileWindow.renewals,
        profileWindow.fromUs,
        profileWindow.toUs,
      );
      profiles.push(`N=${n}, the server's main thread over the window:\n\n${layersTable(rows, 'renewal')}`);
    }
  }
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-fleet-bench-'));
const results: StepResult[] = [];
const header = machine();
try {
  for (const n of steps) {
    const r = await step(n, dir);
    results.push(r);
    if (!r.ok) break;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const best = results.filter((r) => r.ok).at(-1);
const phase = results[0]?.totals.renewPhase;
const simulator = `${values.simulator} simulator${phase === undefined ? '' : ` (${phase} renewal phase)`}`;
console.log(
  `Fleet capacity: default cadence (40 s leases, 10 s renewals), ${simulator}, ${values['start-rate']}/s starts, ${windowS} s window after ${settleS} s settle, simulator and server on one machine${values['server-flags'] === '' ? '' : `, server flags ${values['server-flags']}`} (${header})\n`,
);
console.log(
  '| nodes | registration s | renewals/s (expected) | p50 ms | p99 ms (target ≤ 100) | max ms | server-side p50 / p99 ms | errors | wrongly Unknown (target 0) | server CPU (cores) | fleet CPU (cores) | fleet µs/renewal | server RSS MB | server loop delay p50/p99/max ms | server GC pauses in the window | store commits in the window | holds? |',
);
console.log(`|${'---|'.repeat(17)}`);
const f = (v: number | undefined, d = 0): string => (v === undefined ? '—' : v.toFixed(d));
for (const r of results) {
  const t = r.totals;
  const loop = r.loop ? `${f(r.loop.p50, 1)} / ${f(r.loop.p99, 1)} / ${f(r.loop.max, 0)}` : '—';
  console.log(
    `| ${r.n} | ${r.registerS.toFixed(0)} | ${t.renewalsPerSecond.toFixed(0)} (${f(t.expectedRenewalsPerSecond)}) | ${t.p50Ms} | ${t.p99Ms} | ${t.maxMs} | ${r.serverLatency} | ${t.errors} | ${t.wrongUnknown} | ${r.serverCpu.toFixed(2)} | ${r.fleetCpu.toFixed(2)} | ${f(t.cpuMicrosPerRenewal, 1)} | ${r.serverRssMb.toFixed(0)} | ${loop} | ${r.gc} | ${r.commits} | ${r.ok ? 'yes' : 'no'} |`,
  );
}
console.log(`\nlargest N held: ${best ? best.n : 'none of the steps'} (target ≥ 50,000)`);
for (const p of profiles) console.log(`\n${p}`);
