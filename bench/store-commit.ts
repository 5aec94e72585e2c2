// Lease-renewal throughput through SqliteStore.update() with group commit (fsync on every commit).
// Usage: node --import tsx bench/store-commit.ts [leases=1000] [rounds=20]
// Each round updates every lease concurrently, as a fleet of agents renewing at once would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Lease } from '../src/core/lease.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';

const leases = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 20);
const dir = mkdtempSync(join(tmpdir(), 'shepherd-bench-'));
const batches: number[] = [];
const commitMs: number[] = [];
const store = await openSqliteStore({
  path: join(dir, 'bench.db'),
  onCommit: (size, ms) => {
    batches.push(size);
    commitMs.push(ms);
  },
});

const lease = (i: number): Lease => ({
  apiVersion: 'coordination/v1',
  kind: 'Lease',
  metadata: {
    name: `node-${i}`,
    namespace: 'node-lease',
    uid: `uid-${i}`,
    resourceVersion: '',
    creationTimestamp: new Date().toISOString(),
  },
  spec: { holderIdentity: `node-${i}`, leaseDurationSeconds: 40, renewTime: new Date().toISOString() },
});

let current = await Promise.all(Array.from({ length: leases }, (_, i) => store.create('leases', lease(i))));
batches.length = 0;
commitMs.length = 0;
const started = performance.now();
for (let r = 0; r < rounds; r++) {
  const renewTime = new Date().toISOString();
  current = await Promise.all(
    current.map((l) => store.update('leases', { ...l, spec: { ...l.spec, renewTime } }, l.metadata.resourceVersion)),
  );
}
const seconds = (performance.now() - started) / 1000;
const updates = leases * rounds;
commitMs.sort((a, b) => a - b);
console.log(`${updates} lease updates (${leases} concurrent x ${rounds} rounds) in ${seconds.toFixed(2)} s`);
console.log(
  `${Math.round(updates / seconds)} updates/s; ${batches.length} commits, mean batch ${(updates / batches.length).toFixed(0)}`,
);
console.log(
  `commit p50 ${commitMs[Math.floor(commitMs.length / 2)]?.toFixed(2)} ms, p99 ${commitMs[Math.floor(commitMs.length * 0.99)]?.toFixed(2)} ms`,
);

// The same updates awaited one at a time: every write pays its own fsync.
const serialStart = performance.now();
const serialN = Math.min(200, leases);
for (let i = 0; i < serialN; i++) {
  const l = current[i]!;
  current[i] = await store.update(
    'leases',
    { ...l, spec: { ...l.spec, renewTime: new Date().toISOString() } },
    l.metadata.resourceVersion,
  );
}
const serialSeconds = (performance.now() - serialStart) / 1000;
console.log(`sequential (one write per commit): ${Math.round(serialN / serialSeconds)} updates/s`);
await store.close();
rmSync(dir, { recursive: true, force: true });
