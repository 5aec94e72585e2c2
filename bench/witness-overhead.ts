// Benchmark 15 (BENCHMARKS.md): what peer witnesses cost a healthy fleet in API requests, and what they do to the
// detection of a real death, witnesses on against witnesses off in the same run (docs/witnesses.md#figures).
//   npm run bench:witness -- [--agents 6] [--window 60] [--samples 2] [--probe-interval 1s]
// Steady-state list reads scale as 1 / interval: one per 60 intervals (0.2 a minute at the default 5 s).
// Per mode: a server (grace 4 s, period 500 ms, eviction rate 10/s so no kill waits for a token), agents spread over
// three zones; once every node is Ready (and, witnesses on, reported by its witnesses) the server's request counters
// are read over a healthy window; then agents are killed one by one (SIGKILL) and each kill → NoExecute is timed.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpApiClient } from '../src/client/http-client.js';
import { readyCondition } from '../src/core/node.js';
import { parseDuration } from '../src/core/duration.js';
import { WITNESS_REPORT_ANNOTATION } from '../src/core/witness-report.js';
import { eventually } from '../test/support/eventually.js';
import { median, ROOT, spawnListening } from './lib.js';

const { values } = parseArgs({
  options: {
    agents: { type: 'string', default: '6' },
    window: { type: 'string', default: '60' },
    samples: { type: 'string', default: '2' },
    'probe-interval': { type: 'string', default: '1s' },
  },
});
const AGENTS = Number(values.agents);
const WINDOW_MS = Number(values.window) * 1000;
const SAMPLES = Math.min(Number(values.samples), AGENTS - 3);
const INTERVAL_MS = parseDuration(values['probe-interval'] as string);
const SETTLE_MS = Math.max(15_000, 66 * INTERVAL_MS);
const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Non-watch requests by `METHOD route`, from the server's http_request_duration_seconds_count lines. */
async function requestCounts(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)/gm)) {
    const labels = Object.fromEntries(
      [...(m[1] as string).matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1] as string, l[2] as string]),
    );
    if (labels.method === 'WATCH' || labels.route === '/metrics') continue;
    const key = `${labels.method} ${labels.route}`;
    out.set(key, (out.get(key) ?? 0) + Number(m[2]));
  }
  return out;
}

interface Result {
  perNodePerMinute: Map<string, number>;
  killToNoExecuteMs: number[];
}

async function runMode(witnesses: boolean): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'shepherd-witness-bench-'));
  const server = await spawnListening(
    [
      'bin/shepherd',
      '--mode',
      'server',
      '--listen',
      '127.0.0.1:0',
      '--db',
      join(dir, 'd.db'),
      '--node-monitor-period',
      '500ms',
      '--node-monitor-grace-period',
      '4s',
      '--node-startup-grace-period',
      '6s',
      '--node-eviction-rate',
      '10',
      '--log-level',
      'warn',
    ],
    'shepherd',
  );
  const addr = new URL(server.url).host;
  const client = new HttpApiClient({ addresses: [addr] });
  const agents: ChildProcess[] = Array.from({ length: AGENTS }, (_, i) =>
    spawn(
      process.execPath,
      [
        'bin/shepherd',
        '--mode',
        'agent',
        '--node-name',
        `wb-${i}`,
        '--zone',
        ZONES[i % ZONES.length] as string,
        '--api-addr',
        addr,
        '--lease-duration',
        '4s',
        '--log-level',
        'warn',
        ...(witnesses
          ? ['--witness-bind-address', '127.0.0.1:0', '--witness-probe-interval', values['probe-interval'] as string]
          : []),
        ...(witnesses ? ['--witness-probe-timeout', '500ms'] : []),
      ],
      { cwd: ROOT, stdio: 'ignore' },
    ),
  );
  try {
    await eventually(
      async () => {
        const items = (await client.nodes.list()).items;
        const ready = items.filter((n) => readyCondition(n)?.status === 'True').length === AGENTS;
        const reported = items.filter((n) => n.metadata.annotations?.[WITNESS_REPORT_ANNOTATION] !== undefined);
        return ready && (!witnesses || reported.length === AGENTS);
      },
      { what: 'every agent Ready (and reporting)', timeoutMs: 120_000, intervalMs: 500 },
    );
    // Let start-up settle (the witnesses' list reads back off to their steady rate, 1 + 2 + … + 32 intervals, then
    // one every 60), then count.
    await sleep(SETTLE_MS);
    const before = await requestCounts(server.url);
    await sleep(WINDOW_MS);
    const after = await requestCounts(server.url);
    const perNodePerMinute = new Map<string, number>();
    for (const [k, v] of after) {
      const d = v - (before.get(k) ?? 0);
      if (d > 0) perNodePerMinute.set(k, (d / AGENTS) * (60_000 / WINDOW_MS));
    }
    const killToNoExecuteMs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const name = `wb-${i}`;
      const start = Date.now();
      agents[i]?.kill('SIGKILL');
      await eventually(
        async () => ((await client.nodes.get(name)).spec.taints ?? []).some((t) => t.effect === 'NoExecute'),
        { what: `${name} tainted NoExecute`, timeoutMs: 60_000, intervalMs: 50 },
      );
      killToNoExecuteMs.push(Date.now() - start);
    }
    return { perNodePerMinute, killToNoExecuteMs };
  } finally {
    for (const a of agents) a.kill('SIGKILL');
    await client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const load = loadavg()[0]?.toFixed(1);
process.stdout.write(
  `witness overhead: ${AGENTS} agents in 3 zones, window ${WINDOW_MS / 1000} s, probe interval ${values['probe-interval']}, load at start ${load}\n`,
);
const off = await runMode(false);
const on = await runMode(true);
const keys = [...new Set([...off.perNodePerMinute.keys(), ...on.perNodePerMinute.keys()])].sort();
const f = (n: number | undefined): string => (n ?? 0).toFixed(2);
process.stdout.write('\n| requests per node per minute | witnesses off | witnesses on | extra |\n|---|---|---|---|\n');
let totalOff = 0;
let totalOn = 0;
for (const k of keys) {
  const a = off.perNodePerMinute.get(k) ?? 0;
  const b = on.perNodePerMinute.get(k) ?? 0;
  totalOff += a;
  totalOn += b;
  process.stdout.write(`| \`${k}\` | ${f(a)} | ${f(b)} | ${f(b - a)} |\n`);
}
process.stdout.write(`| all | ${f(totalOff)} | ${f(totalOn)} | ${f(totalOn - totalOff)} |\n`);
const ms = (xs: number[]): string =>
  `${(median(xs) / 1000).toFixed(2)} s (${xs.map((x) => (x / 1000).toFixed(2)).join(', ')})`;
process.stdout.write(
  `\nkill → NoExecute, median: witnesses off ${ms(off.killToNoExecuteMs)}, on ${ms(on.killToNoExecuteMs)}; ratio on/off ${(median(on.killToNoExecuteMs) / median(off.killToNoExecuteMs)).toFixed(2)}\n`,
);
