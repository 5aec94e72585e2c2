// Benchmark 11 (BENCHMARKS.md): database size after 1M lease renewals over 1,000 leases, made flat out over HTTP so
// that every one of them is still inside the 5-minute history the change log must keep. Prints a Markdown table.
//   npm run bench:db-size -- [--renewals 1000000] [--leases 1000] [--connections 50]
// Baseline, same run: the kept history written out as plain JSON (what a log of whole objects would hold).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createLeases, renewalLoad, spawnListening } from './lib.js';
import { machine } from './proc-stats.js';

const { values } = parseArgs({
  options: {
    renewals: { type: 'string', default: '1000000' },
    leases: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '50' },
  },
});
const MB = 1024 * 1024;
const size = (p: string): number => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};

const startedOn = machine();
const dir = mkdtempSync(join(tmpdir(), 'shepherd-db-size-'));
try {
  const path = join(dir, 'shepherd.db');
  const server = await spawnListening(
    [
      'bin/shepherd',
      '--mode',
      'server',
      '--listen',
      '127.0.0.1:0',
      '--db',
      path,
      '--no-controller',
      '--log-level',
      'warn',
    ],
    'shepherd',
  );
  const leases = await createLeases(server.url, Number(values.leases));
  const started = performance.now();
  const load = await renewalLoad(server.url, leases, {
    connections: Number(values.connections),
    amount: Number(values.renewals),
  });
  const seconds = (performance.now() - started) / 1000;
  const live = { db: size(path), wal: size(`${path}-wal`) };
  await server.stop();
  const db = new Database(path, { readonly: true });
  const meta = db.prepare('SELECT revision, compacted_revision FROM meta').get() as {
    revision: number;
    compacted_revision: number;
  };
  const avgJson = db.prepare("SELECT avg(length(value)) FROM objects WHERE kind = 'leases'").pluck().get() as number;
  const logBytes = db.prepare('SELECT sum(length(data)) FROM change_log').pluck().get() as number;
  db.close();
  const kept = meta.revision - meta.compacted_revision;
  console.log(
    `DB size benchmark: ${load.total} renewals over ${values.leases} leases, flat out over HTTP (${values.connections} connections), ${seconds.toFixed(0)} s; ${startedOn}\n`,
  );
  console.log('| figure | measured | target |');
  console.log('|---|---|---|');
  console.log(
    `| renewals answered 200 / errors + non-2xx | ${load.total - load.non2xx} / ${load.errors + load.non2xx} | — |`,
  );
  console.log(`| changes kept in the history (all inside the 5-min window) | ${kept} | — |`);
  console.log(
    `| database file at the end, server running (+ WAL) | **${(live.db / MB).toFixed(1)} MB** (+ ${(live.wal / MB).toFixed(1)} MB) | < 50 MB |`,
  );
  console.log(`| database file after a clean shutdown | ${(size(path) / MB).toFixed(1)} MB | — |`);
  console.log(`| change-log payload per kept change | ${(logBytes / Math.max(1, kept)).toFixed(1)} B | — |`);
  console.log(
    `| baseline: the kept history as plain JSON (${avgJson.toFixed(0)} B per lease version) | ${((kept * avgJson) / MB).toFixed(1)} MB | — |`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
