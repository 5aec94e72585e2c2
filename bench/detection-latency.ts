// Benchmarks 7 and 8 (BENCHMARKS.md): with default flags (grace 50 s, period 5 s), the time from an agent's death
// (SIGKILL) to Ready=Unknown and to the NoExecute taint; and one agent's idle RSS and CPU at default cadence (10 s
// renewals, 10 s status checks) before it is killed.
//   npm run bench:detection -- [--samples 3] [--idle 60] [--stagger 20]
// A 30-node simulated fleet keeps zone-a healthy so each death is a lone failure (zone Normal, rate 0.1/s);
// kills are staggered so the zone's token bucket (one taint per 10 s) never delays a sample.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpApiClient } from '../src/client/http-client.js';
import { readyCondition } from '../src/core/node.js';
import { eventually } from '../test/support/eventually.js';
import { median, ROOT, spawnListening } from './lib.js';
import { cpuShare, machine, procSample } from './proc-stats.js';

// Read before the runs: the load and speed probe describe the machine they start on.
const startedOn = machine();

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '3' },
    idle: { type: 'string', default: '60' },
    stagger: { type: 'string', default: '20' },
  },
});
const SAMPLES = Number(values.samples);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const TARGET_S = 50 + 5 + 1;

interface Sample {
  name: string;
  killedAt: number;
  lastRenewAt: number;
  unknownAt?: number;
  taintAt?: number;
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-detect-'));
const server = await spawnListening(
  ['bin/shepherd', '--mode', 'server', '--listen', '127.0.0.1:0', '--db', join(dir, 'd.db'), '--log-level', 'warn'],
  'shepherd',
);
const addr = new URL(server.url).host;
const fleet = spawn(
  process.execPath,
  [
    'bin/shepherd',
    '--mode',
    'fleet',
    '--nodes',
    '30',
    '--zones',
    '1',
    '--api-addr',
    addr,
    '--log-level',
    'warn',
    '--report-interval',
    '1h',
  ],
  { cwd: ROOT, stdio: ['pipe', 'ignore', 'inherit'] },
);
const agents = Array.from({ length: SAMPLES }, (_, i) =>
  spawn(
    process.execPath,
    [
      'bin/shepherd',
      '--mode',
      'agent',
      '--node-name',
      `victim-${i}`,
      '--zone',
      'zone-a',
      '--api-addr',
      addr,
      '--log-level',
      'warn',
    ],
    { cwd: ROOT, stdio: 'ignore' },
  ),
);
const client = new HttpApiClient({ addresses: [addr] });
const samples = new Map<string, Sample>();
const ac = new AbortController();
let idle = { rssMb: 0, cpu: 0 };
let watching: Promise<unknown> = Promise.resolve();
try {
  watching = (async () => {
    for await (const ev of client.nodes.watch({ resourceVersion: '0', signal: ac.signal })) {
      if (ev.type === 'BOOKMARK') continue;
      const s = samples.get(ev.object.metadata.name);
      if (!s) continue;
      const now = Date.now();
      if (s.unknownAt === undefined && readyCondition(ev.object)?.status === 'Unknown') s.unknownAt = now;
      if (s.taintAt === undefined && (ev.object.spec.taints ?? []).some((t) => t.effect === 'NoExecute'))
        s.taintAt = now;
    }
  })().catch((e: unknown) => process.stderr.write(`watch: ${String(e)}\n`));
  // Registered and renewing; then the first agent's idle cost over the idle window.
  await eventually(
    async () => {
      const nodes = await client.nodes.list();
      return agents.every((_, i) =>
        nodes.items.some((n) => n.metadata.name === `victim-${i}` && readyCondition(n)?.status === 'True'),
      );
    },
    { what: 'every victim registered and Ready', timeoutMs: 10 * 60_000, intervalMs: 1000 },
  );
  await sleep(10_000);
  const pid = agents[0]?.pid as number;
  const a = procSample(pid);
  await sleep(Number(values.idle) * 1000);
  const b = procSample(pid);
  idle = { rssMb: b.rssMb, cpu: cpuShare(a, b, Number(values.idle)) };
  process.stderr.write(`agent idle: ${JSON.stringify(idle)}\n`);
  for (const [i, agent] of agents.entries()) {
    if (i > 0) await sleep(Number(values.stagger) * 1000);
    agent.kill('SIGKILL');
    const killedAt = Date.now();
    const lease = await client.leases().get(`victim-${i}`);
    samples.set(`victim-${i}`, { name: `victim-${i}`, killedAt, lastRenewAt: Date.parse(lease.spec.renewTime) });
  }
  // Waits for every victim's taint; after 2 min the report shows whichever samples are still missing.
  await eventually(() => [...samples.values()].every((s) => s.taintAt !== undefined), {
    what: 'every victim tainted',
    timeoutMs: 120_000,
    intervalMs: 500,
  }).catch(() => undefined);
} finally {
  ac.abort();
  await watching;
  for (const agent of agents) agent.kill('SIGKILL');
  fleet.stdin?.end('quit\n');
  await new Promise((r) => (fleet.exitCode !== null ? r(undefined) : fleet.once('exit', r)));
  await client.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
const list = [...samples.values()];
const s = (v: number | undefined, from: number): string =>
  v === undefined ? 'not seen' : ((v - from) / 1000).toFixed(1);
console.log(
  `Detection latency, default flags (grace 50 s, monitor period 5 s, 40 s leases), ${list.length} agents SIGKILLed ${values.stagger} s apart (${startedOn})\n`,
);
console.log(
  '| agent | death → Ready=Unknown s | death → NoExecute taint s | last renewal → Unknown s | target (grace + period + 1 s) |',
);
console.log('|---|---|---|---|---|');
for (const x of list)
  console.log(
    `| ${x.name} | ${s(x.unknownAt, x.killedAt)} | ${s(x.taintAt, x.killedAt)} | ${s(x.unknownAt, x.lastRenewAt)} | ≤ ${TARGET_S} s |`,
  );
const med = (f: (x: Sample) => number | undefined): string => {
  const xs = list.map(f).filter((v): v is number => v !== undefined);
  return xs.length ? (median(xs) / 1000).toFixed(1) : 'n/a';
};
console.log(
  `| median | ${med((x) => x.unknownAt && x.unknownAt - x.killedAt)} | ${med((x) => x.taintAt && x.taintAt - x.killedAt)} | ${med((x) => x.unknownAt && x.unknownAt - x.lastRenewAt)} | ≤ ${TARGET_S} s |`,
);
console.log(
  `\nOne agent idle at default cadence (after registration, ${values.idle} s): RSS ${idle.rssMb.toFixed(0)} MB (target < 60 MB), CPU ${(idle.cpu * 100).toFixed(2)}% of a core (target < 1%)`,
);
