// Listing N nodes over HTTP in pages (500, the clients' page size, and 10,000, the largest) against the one-shot list
// of a shepherd from before paging: wall time, the server's peak RSS during the list, and the slowest /healthz answer
// meanwhile (the longest stall of the server's event loop, seen from outside; a worker thread probes every 10 ms so
// the bench's own JSON parsing cannot delay the probes).
//   npm run bench:list-paging -- [--nodes 100000] [--runs 3] [--baseline DIR]
// DIR is a built shepherd from before paging, e.g. `git archive da767bb | tar -x -C DIR`, `ln -s $PWD/node_modules
// DIR/`, `(cd DIR && npx tsc -p tsconfig.build.json)`. Without it only the paged lists are measured.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { formatTime } from '../src/core/clock.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { benchNode, median, ROOT } from './lib.js';
import { machine, procSample } from './proc-stats.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
    baseline: { type: 'string' },
  },
});
const n = Number(values.nodes);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function buildDb(path: string): Promise<void> {
  const store = await openSqliteStore({ path });
  const at = formatTime(Date.now());
  for (let i = 0; i < n; i += 5000) {
    const writes: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(n, i + 5000); j++) writes.push(store.create('nodes', benchNode(j, at)));
    await Promise.all(writes);
  }
  await store.close();
}

/** Probes /healthz and samples the server's RSS from a thread of its own, until told to stop. */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { url, pid } = workerData;
let stop = false;
const probes = [];
let peakRssMb = 0;
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/' + pid + '/status', 'utf8'))[1]) / 1024;
const sampler = setInterval(() => { peakRssMb = Math.max(peakRssMb, rss()); }, 5);
// 'start': the list begins (forget the probes before it); 'stop': it ended.
parentPort.on('message', (m) => { if (m === 'start') { probes.length = 0; peakRssMb = 0; } else stop = true; });
(async () => {
  while (!stop) {
    const t = performance.now();
    await (await fetch(url + '/healthz')).text();
    probes.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  clearInterval(sampler);
  peakRssMb = Math.max(peakRssMb, rss());
  parentPort.postMessage({ probes, peakRssMb });
})();
`;

interface Run {
  wallS: number;
  pages: number;
  items: number;
  peakRssMb: number;
  rssBeforeMb: number;
  probeMaxMs: number;
  probeP99Ms: number;
}

/** Starts `dir`'s server on `db`, lists every node (limit: page size; none: one request), stops it. */
async function runOnce(dir: string, db: string, limit: number | undefined): Promise<Run> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const url = `http://127.0.0.1:${port}`;
  const args = ['bin/shepherd', '--mode', 'server', '--no-controller', '--listen', `127.0.0.1:${port}`];
  const child = spawn(process.execPath, [...args, '--db', db, '--log-level', 'warn'], { cwd: dir, stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server in ${dir} exited with ${child.exitCode}`);
      const ok = await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      await sleep(20);
    }
    await sleep(2000);
    const pid = child.pid as number;
    const rssBeforeMb = procSample(pid).rssMb;
    const probe = new Worker(PROBE, { eval: true, workerData: { url, pid } });
    await sleep(300);
    probe.postMessage('start');
    const t0 = performance.now();
    let pages = 0;
    let items = 0;
    let next: string | undefined;
    do {
      const query = limit === undefined ? '' : `?limit=${limit}${next ? `&continue=${encodeURIComponent(next)}` : ''}`;
      const res = await fetch(`${url}/api/v1/nodes${query}`);
      const body = (await res.json()) as { items: unknown[]; metadata: { continue?: string } };
      if (res.status !== 200) throw new Error(`list answered ${res.status}: ${JSON.stringify(body)}`);
      pages++;
      items += body.items.length;
      next = body.metadata.continue;
    } while (next !== undefined && next !== '');
    const wallS = (performance.now() - t0) / 1000;
    await sleep(200);
    const done = new Promise<{ probes: number[]; peakRssMb: number }>((r) => probe.once('message', r));
    probe.postMessage('stop');
    const { probes, peakRssMb } = await done;
    await probe.terminate();
    const sorted = [...probes].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
    return { wallS, pages, items, peakRssMb, rssBeforeMb, probeMaxMs: sorted.at(-1) ?? 0, probeP99Ms: p99 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
  }
}

const work = mkdtempSync(join(tmpdir(), 'shepherd-list-'));
try {
  const loadAtStart = machine();
  const db = join(work, 'nodes.db');
  const t0 = performance.now();
  await buildDb(db);
  const sizeMb = statSync(db).size / 1024 / 1024;
  process.stderr.write(
    `built ${n} nodes in ${((performance.now() - t0) / 1000).toFixed(0)} s (${sizeMb.toFixed(0)} MB)\n`,
  );
  const configs: Array<{ name: string; dir: string; db: string; limit: number | undefined }> = [
    { name: 'pages of 500 (this build)', dir: ROOT, db, limit: 500 },
    { name: 'pages of 10,000 (this build)', dir: ROOT, db, limit: 10_000 },
  ];
  if (values.baseline !== undefined) {
    // The schema v3 migration only moves a never-written database to revision 1, so a v3 file is a valid v2 one:
    // label it with the version the older build knows.
    const baseDb = join(work, 'baseline.db');
    copyFileSync(db, baseDb);
    const known = readdirSync(join(values.baseline, 'migrations')).filter((f) => f.endsWith('.sql')).length;
    const handle = new Database(baseDb);
    if ((handle.pragma('user_version', { simple: true }) as number) > known) handle.pragma(`user_version = ${known}`);
    handle.close();
    configs.unshift({
      name: 'one request, before paging (baseline)',
      dir: values.baseline,
      db: baseDb,
      limit: undefined,
    });
  }
  const results = new Map<string, Run[]>(configs.map((c) => [c.name, []]));
  for (let r = 0; r < Number(values.runs); r++) {
    // Alternate the order, so neither side always runs on a machine warmed (or loaded) by the other.
    for (const c of r % 2 === 0 ? configs : [...configs].reverse()) {
      const run = await runOnce(c.dir, c.db, c.limit);
      process.stderr.write(`${c.name}, run ${r + 1}: ${JSON.stringify(run)}\n`);
      results.get(c.name)?.push(run);
    }
  }
  console.log(
    `Listing ${n} nodes (${sizeMb.toFixed(0)} MB of SQLite) over HTTP, server without controller (${loadAtStart})\n`,
  );
  console.log('| list | requests | wall s | server peak RSS MB (before) | slowest /healthz during the list ms (p99) |');
  console.log('|---|---|---|---|---|');
  for (const c of configs) {
    const runs = results.get(c.name) ?? [];
    const m = (f: (x: Run) => number): number => median(runs.map(f));
    console.log(
      `| ${c.name} | ${runs[0]?.pages ?? 0} | ${m((x) => x.wallS).toFixed(2)} | ${m((x) => x.peakRssMb).toFixed(0)} (${m((x) => x.rssBeforeMb).toFixed(0)}) | ${m((x) => x.probeMaxMs).toFixed(0)} (${m((x) => x.probeP99Ms).toFixed(0)}) |`,
    );
  }
  console.log(`\nMedians of ${values.runs} runs per row, alternating order; a fresh server for every run.`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
