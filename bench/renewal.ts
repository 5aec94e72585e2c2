// Benchmark 1 (BENCHMARKS.md): durable lease renewals on the real server vs a no-op fastify PUT route,
// the same load generator, same connections, in one run. Prints a Markdown table for BENCHMARKS.md.
//   npm run bench:renewal -- [--runs 3] [--duration 10] [--connections 50] [--leases 1000] [--not-ready-nodes] [--floor]
// --floor commit[,pool,none]: more targets, bench/durable-floor-server.ts (the no-op route plus the least durable
// SQLite write, with its fsync where --sync says), so the table shows how much of the gap any store on fastify +
// SQLite pays and how much is shepherd's own.
// --variant="FLAGS" (repeatable; with "="): shepherd once more per run with these extra server flags, e.g. "--log-level info".
// --not-ready-nodes: every lease gets a Node with Ready=Unknown, so every renewal answers with the
// shepherd-node-ready header (docs/node-lifecycle.md#agent-heal): that path's worst case.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLeases, median, renewalLoad, spawnListening, type LoadResult, type Spawned } from './lib.js';
import { machine, threadCpu } from './proc-stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    leases: { type: 'string', default: '1000' },
    'not-ready-nodes': { type: 'boolean', default: false },
    floor: { type: 'string', default: '' },
    variant: { type: 'string', multiple: true, default: [] },
  },
});
const notReadyNodes = values['not-ready-nodes'] === true;

/** A Node with Ready=Unknown per lease (the controller's mark), so each renewal carries the header. */
async function createNotReadyNodes(url: string, leases: { name: string }[]): Promise<void> {
  const at = new Date().toISOString();
  for (const { name } of leases) {
    const res = await fetch(`${url}/api/v1/nodes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name }, spec: {} }),
    });
    const node = (await res.json()) as Record<string, unknown>;
    const ready = { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', lastHeartbeatTime: at };
    await fetch(`${url}/api/v1/nodes/${name}/status`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...node, status: { conditions: [ready] } }),
    });
  }
}
const runs = Number(values.runs);
const durationS = Number(values.duration);
const connections = Number(values.connections);
const nLeases = Number(values.leases);

/** A load run plus where its CPU went: microseconds per request in the server's main thread, its other threads, and the load generator. */
type Measured = LoadResult & { mainUs: number; otherUs: number; clientUs: number; perCommit: number };

/** shepherd's writes per commit so far (its batch-size histogram); NaN for a server without /metrics. */
async function commitTotals(url: string): Promise<{ writes: number; commits: number }> {
  const text = await fetch(`${url}/metrics`)
    .then((res) => (res.ok ? res.text() : ''))
    .catch(() => '');
  const metric = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    writes: metric('shepherd_store_commit_batch_size_sum'),
    commits: metric('shepherd_store_commit_batch_size_count'),
  };
}

async function measure(s: Spawned, leases: { name: string; rv: string }[]): Promise<Measured> {
  const pid = s.child.pid as number;
  const commitsBefore = await commitTotals(s.url);
  const before = threadCpu(pid);
  const client = process.cpuUsage();
  const r = await renewalLoad(s.url, leases, { connections, durationS });
  const used = process.cpuUsage(client);
  const after = threadCpu(pid);
  const commitsAfter = await commitTotals(s.url);
  const per = (seconds: number): number => (seconds * 1e6) / Math.max(1, r.total);
  return {
    ...r,
    mainUs: per(after.mainS - before.mainS),
    otherUs: per(after.otherS - before.otherS),
    clientUs: per((used.user + used.system) / 1e6),
    perCommit: (commitsAfter.writes - commitsBefore.writes) / (commitsAfter.commits - commitsBefore.commits),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-bench-'));
const noop: Measured[] = [];
const real: Measured[] = [];
const floors = new Map<string, Measured[]>(
  values.floor === '' ? [] : values.floor.split(',').map((mode) => [mode, [] as Measured[]]),
);
const variants = new Map<string, Measured[]>((values.variant ?? []).map((flags) => [flags, [] as Measured[]]));
const targets = [
  'noop',
  ...[...floors.keys()].map((mode) => `floor:${mode}`),
  'real',
  ...[...variants.keys()].map((flags) => `variant:${flags}`),
];
const results = (which: string): Measured[] => {
  if (which === 'noop') return noop;
  if (which === 'real') return real;
  if (which.startsWith('variant:')) return variants.get(which.slice('variant:'.length)) as Measured[];
  return floors.get(which.slice('floor:'.length)) as Measured[];
};
const startedOn = machine();
try {
  for (let r = 0; r < runs; r++) {
    // Rotate which one goes first so drift on this noisy machine hits them all.
    for (const which of [...targets.slice(r % targets.length), ...targets.slice(0, r % targets.length)]) {
      if (which.startsWith('floor:')) {
        const mode = which.slice('floor:'.length);
        const db = join(dir, `floor-${mode}-${r}.db`);
        const args = ['--import', 'tsx', 'bench/durable-floor-server.ts', '--db', db, '--leases', String(nLeases)];
        const s = await spawnListening([...args, '--sync', mode], 'durable floor server');
        const leases = Array.from({ length: nLeases }, (_, i) => ({ name: `bench-node-${i}`, rv: '1' }));
        results(which).push(await measure(s, leases));
        await s.stop();
      } else if (which === 'noop') {
        const s = await spawnListening(['--import', 'tsx', 'bench/noop-server.ts'], 'noop server');
        const leases = Array.from({ length: nLeases }, (_, i) => ({ name: `bench-node-${i}`, rv: '1' }));
        noop.push(await measure(s, leases));
        await s.stop();
      } else {
        const extra = which.startsWith('variant:') ? which.slice('variant:'.length).split(/\s+/).filter(Boolean) : [];
        const db = join(dir, `run-${r}-${targets.indexOf(which)}.db`);
        const s = await spawnListening(
          [
            'bin/shepherd',
            '--mode',
            'server',
            '--listen',
            '127.0.0.1:0',
            '--db',
            db,
            '--no-controller',
            '--log-level',
            'warn',
            ...extra,
          ],
          'shepherd',
        );
        const leases = await createLeases(s.url, nLeases);
        if (notReadyNodes) await createNotReadyNodes(s.url, leases);
        results(which).push(await measure(s, leases));
        await s.stop();
      }
      const last = results(which).at(-1) as Measured;
      process.stderr.write(
        `run ${r + 1} ${which}: ${last.rps.toFixed(0)} req/s p50 ${last.p50} ms p99 ${last.p99} ms errors ${last.errors} non-2xx ${last.non2xx}\n`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const m = (xs: Measured[], k: keyof Measured): number => median(xs.map((x) => x[k]));
const row = (name: string, xs: Measured[]): string =>
  `| ${name} | ${m(xs, 'rps').toFixed(0)} | ${m(xs, 'p50')} | ${m(xs, 'p99')} | ${xs.reduce((a, x) => a + x.errors + x.non2xx, 0)} | ` +
  `${m(xs, 'mainUs').toFixed(0)} | ${m(xs, 'otherUs').toFixed(0)} | ${m(xs, 'clientUs').toFixed(0)} | ` +
  `${Number.isNaN(m(xs, 'perCommit')) ? '—' : m(xs, 'perCommit').toFixed(1)} |`;
console.log(
  `Renewal benchmark: ${runs} runs × ${durationS}s, ${connections} keep-alive connections, ${nLeases} leases${notReadyNodes ? ' (each with a Ready=Unknown Node)' : ''}, medians; ${startedOn}\n`,
);
console.log(
  '| target | req/s | p50 ms | p99 ms | errors + non-2xx | server main thread µs CPU/req | server other threads µs/req | load generator µs/req | writes per commit |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
console.log(row('no-op fastify PUT (baseline)', noop));
const FLOOR_NAMES: Record<string, string> = {
  commit: 'floor: no-op route + one UPDATE, group commit, fsync in COMMIT',
  pool: 'floor: the same, fdatasync of the WAL on the thread pool',
  none: 'floor: the same, no fsync (not durable)',
};
for (const [mode, xs] of floors) console.log(row(FLOOR_NAMES[mode] ?? `floor: --sync ${mode}`, xs));
console.log(row('shepherd PUT /api/v1/leases/{name} (durable)', real));
for (const [flags, xs] of variants) console.log(row(`shepherd ${flags}`, xs));
console.log(
  `\nthroughput ratio ${(m(real, 'rps') / m(noop, 'rps')).toFixed(2)} (target ≥ 0.80); p99 ratio ${(m(real, 'p99') / Math.max(1, m(noop, 'p99'))).toFixed(2)} (target ≤ 2)`,
);
for (const [flags, xs] of variants)
  console.log(
    `shepherd ${flags} / no-op ${(m(xs, 'rps') / m(noop, 'rps')).toFixed(2)}, p99 × ${(m(xs, 'p99') / Math.max(1, m(noop, 'p99'))).toFixed(2)}`,
  );
for (const [mode, xs] of floors)
  console.log(
    `floor (--sync ${mode}) / no-op ${(m(xs, 'rps') / m(noop, 'rps')).toFixed(2)}; shepherd / that floor ${(m(real, 'rps') / m(xs, 'rps')).toFixed(2)}`,
  );
