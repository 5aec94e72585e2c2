// Lease renewal (compare-and-swap update) throughput and latency at the store level, EtcdStore next to
// SqliteStore in the same run: N concurrent updaters, each renewing its own leases with the resourceVersion
// of its last write, so every write is a CAS that should succeed. Prints a Markdown table for BENCHMARKS.md.
//   node --import tsx bench/etcd-renewal.ts [--etcd http://127.0.0.1:2379] [--updaters 64] [--leases 640] [--duration 10] [--runs 2]
// Without --etcd it starts a throw-away etcd (/usr/bin/etcd, fsync on) on free ports.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Lease } from '../src/core/lease.js';
import { openEtcdStore } from '../src/store/etcd/etcd-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { startEtcd, type TestEtcd } from '../test/support/etcd.js';

const { values } = parseArgs({
  options: {
    etcd: { type: 'string' },
    updaters: { type: 'string', default: '64' },
    leases: { type: 'string', default: '640' },
    duration: { type: 'string', default: '10' },
    runs: { type: 'string', default: '2' },
  },
});
const updaters = Number(values.updaters);
const nLeases = Number(values.leases);
const durationMs = Number(values.duration) * 1000;
const runs = Number(values.runs);

interface Result {
  writes: number;
  conflicts: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

function lease(name: string, renewTime: string): Lease {
  return {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: { name, namespace: 'node-lease', uid: `uid-${name}`, resourceVersion: '', creationTimestamp: renewTime },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
  };
}

async function load(store: Store): Promise<Result> {
  const now = new Date().toISOString();
  const owned: Lease[][] = Array.from({ length: updaters }, () => []);
  for (let i = 0; i < nLeases; i++) {
    owned[i % updaters]!.push(await store.create('leases', lease(`bench-${i}`, now)));
  }
  const result: Result = { writes: 0, conflicts: 0, errors: 0, seconds: 0, latencies: [] };
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    owned.map(async (mine) => {
      for (let k = 0; performance.now() < deadline; k = (k + 1) % mine.length) {
        const cur = mine[k]!;
        const t0 = performance.now();
        try {
          const next = { ...cur, spec: { ...cur.spec, renewTime: new Date().toISOString() } };
          mine[k] = await store.update('leases', next, cur.metadata.resourceVersion);
          result.writes++;
          result.latencies.push(performance.now() - t0);
        } catch (err) {
          if ((err as { reason?: string }).reason === 'Conflict') result.conflicts++;
          else result.errors++;
        }
      }
    }),
  );
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function row(name: string, r: Result): string {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const rate = Math.round(r.writes / r.seconds);
  return `| ${name} | ${updaters} | ${rate} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${r.conflicts} | ${r.errors} |`;
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-bench-'));
let etcd: TestEtcd | undefined;
const rows: string[] = [];
try {
  const endpoint = values.etcd ?? (etcd = await startEtcd({ fsync: true })).endpoint;
  for (let r = 0; r < runs; r++) {
    // Alternate the order so drift on this shared machine hits both backends.
    for (const which of r % 2 === 0 ? ['sqlite', 'etcd'] : ['etcd', 'sqlite']) {
      const store =
        which === 'etcd'
          ? await openEtcdStore({ endpoints: [endpoint], prefix: `/bench-${process.pid}-${r}` })
          : await openSqliteStore({ path: join(dir, `bench-${r}.db`) });
      try {
        rows.push(row(`${which} (run ${r + 1})`, await load(store)));
      } finally {
        await store.close();
      }
    }
  }
} finally {
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `Lease renewal CAS at the store level, ${nLeases} leases, ${durationMs / 1000} s per run (${new Date().toISOString()})\n`,
);
console.log('| backend | updaters | updates/s | p50 ms | p99 ms | conflicts | errors |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
