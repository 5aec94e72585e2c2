// Benchmark 10 (BENCHMARKS.md), HTTP level: lease renewal (PUT /api/v1/leases/{name} with the right resourceVersion)
// against the real server on SQLite, on etcd, and on two servers sharing one etcd (the load split between them), in one
// run, the load of bench/renewal.ts (see renewalLoad below for why it is not lib.ts's). Prints a Markdown table for
// BENCHMARKS.md.
//   node --import tsx bench/http-renewal-etcd.ts [--etcd http://127.0.0.1:2379] [--runs 2] [--duration 10] [--connections 50] [--leases 1000]
// Without --etcd it starts a throw-away single-member etcd (/usr/bin/etcd, fsync on: durable like SQLite).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEtcd, type TestEtcd } from '../test/support/etcd.js';
import { createLeases, median, renewalLoad, spawnListening, type LoadResult, type Spawned } from './lib.js';

const { values } = parseArgs({
  options: {
    etcd: { type: 'string' },
    runs: { type: 'string', default: '2' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    leases: { type: 'string', default: '1000' },
  },
});
const runs = Number(values.runs);
const durationS = Number(values.duration);
const connections = Number(values.connections);
const nLeases = Number(values.leases);

type Target = 'sqlite' | 'etcd' | 'etcd-2-servers';
const TARGETS: Target[] = ['sqlite', 'etcd', 'etcd-2-servers'];
const LABELS: Record<Target, string> = {
  sqlite: 'SQLite, 1 server',
  etcd: 'etcd, 1 server',
  'etcd-2-servers': 'etcd, 2 servers (load split)',
};

type Held = { name: string; rv: string };
function server(args: string[]): Promise<Spawned> {
  return spawnListening(
    ['bin/shepherd', '--mode', 'server', '--listen', '127.0.0.1:0', '--no-controller', '--log-level', 'warn', ...args],
    'shepherd',
  );
}

/** Two loads at once, one per server: throughput adds up, the latency figures are the worse of the two. */
async function split(urls: [string, string], leases: Held[][]): Promise<LoadResult> {
  const half = Math.max(1, Math.floor(connections / 2));
  const [a, b] = await Promise.all(
    urls.map((u, i) => renewalLoad(u, leases[i] as Held[], { connections: half, durationS })),
  );
  const x = a as LoadResult;
  const y = b as LoadResult;
  return {
    rps: x.rps + y.rps,
    p50: Math.max(x.p50, y.p50),
    p99: Math.max(x.p99, y.p99),
    errors: x.errors + y.errors,
    non2xx: x.non2xx + y.non2xx,
    total: x.total + y.total,
  };
}

async function measure(target: Target, run: number, endpoint: string, dir: string): Promise<LoadResult> {
  // A fresh prefix per run, so every run starts from the same number of keys.
  const etcdArgs = [
    '--etcd-servers',
    endpoint,
    '--etcd-prefix',
    `/bench-${process.pid}-${run}-${target}`,
    '--leader-elect=false',
  ];
  if (target === 'sqlite') {
    const s = await server(['--db', join(dir, `run-${run}.db`)]);
    try {
      return await renewalLoad(s.url, await createLeases(s.url, nLeases), { connections, durationS });
    } finally {
      await s.stop();
    }
  }
  if (target === 'etcd') {
    const s = await server(etcdArgs);
    try {
      return await renewalLoad(s.url, await createLeases(s.url, nLeases), { connections, durationS });
    } finally {
      await s.stop();
    }
  }
  const [a, b] = await Promise.all([server(etcdArgs), server(etcdArgs)]);
  try {
    const half = Math.floor(nLeases / 2);
    const leases = [await createLeases(a.url, half, 'bench-a-'), await createLeases(b.url, nLeases - half, 'bench-b-')];
    return await split([a.url, b.url], leases);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-bench-'));
let etcd: TestEtcd | undefined;
const results = new Map<Target, LoadResult[]>(TARGETS.map((t) => [t, []]));
try {
  const endpoint = values.etcd ?? (etcd = await startEtcd({ fsync: true })).endpoint;
  for (let r = 0; r < runs; r++) {
    // Rotate the order so drift on this shared machine hits every target.
    const order = TARGETS.map((_, i) => TARGETS[(i + r) % TARGETS.length] as Target);
    for (const target of order) {
      const res = await measure(target, r, endpoint, dir);
      results.get(target)?.push(res);
      process.stderr.write(
        `run ${r + 1} ${target}: ${res.rps.toFixed(0)} req/s p50 ${res.p50} ms p99 ${res.p99} ms errors ${res.errors} non-2xx ${res.non2xx}\n`,
      );
    }
  }
} finally {
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
}
const m = (xs: LoadResult[], k: keyof LoadResult): number => median(xs.map((x) => x[k]));
console.log(
  `HTTP lease renewal, ${runs} runs × ${durationS}s, ${connections} keep-alive connections, ${nLeases} leases, medians` +
    `${values.etcd ? ` (etcd ${values.etcd})` : ' (single-member etcd, fsync on)'}, ${new Date().toISOString()}\n`,
);
console.log('| storage | req/s | p50 ms | p99 ms | errors + non-2xx |');
console.log('|---|---|---|---|---|');
for (const t of TARGETS) {
  const xs = results.get(t) ?? [];
  console.log(
    `| ${LABELS[t]} | ${m(xs, 'rps').toFixed(0)} | ${m(xs, 'p50')} | ${m(xs, 'p99')} | ${xs.reduce((a, x) => a + x.errors + x.non2xx, 0)} |`,
  );
}
