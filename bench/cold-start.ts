// Benchmarks 5 and 6 (BENCHMARKS.md): a server starting on a database that holds 100k nodes and 100k leases:
// time from spawn to /readyz 200, and its RSS once the controller has listed and judged everything. Every run starts
// on its own copy of the database as built (a run's controller writes to it: Suspect marks, verdicts, events), so the
// runs are alike and the peak is a median, not one sample.
// The nodes registered over the hour before the build, and each has its own last heartbeat and renewal, as a fleet's
// do (a single timestamp for all would be one string shared 1.3M times once listed: shared-strings.ts).
//   npm run bench:cold-start -- [--nodes 100000] [--runs 3] [--rss-after 30] [--server-flags="--node-suspect-after 1000"]
//                               [--server-root DIR]   (another build's checkout, its dist built: an A/B in one sitting)
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatTime } from '../src/core/clock.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { benchLease, benchNode, median, ROOT } from './lib.js';
import { machine, procSample } from './proc-stats.js';

// Read before the runs: the load and speed probe describe the machine they start on.
const startedOn = machine();

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
    'rss-after': { type: 'string', default: '30' },
    // Extra server flags, e.g. "--node-suspect-after 1000" to keep the silent nodes from turning Suspect in the window.
    'server-flags': { type: 'string', default: '' },
    'server-root': { type: 'string', default: ROOT },
  },
});
const n = Number(values.nodes);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function buildDb(path: string): Promise<number> {
  const t0 = performance.now();
  const store = await openSqliteStore({ path });
  const now = Date.now();
  const BATCH = 5000;
  for (let i = 0; i < n; i += BATCH) {
    const writes: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(n, i + BATCH); j++) {
      const registered = formatTime(now - 3_600_000 + Math.floor((j * 3_000_000) / n));
      const node = benchNode(j, registered);
      const heartbeat = formatTime(now - 40_000 + (j % 40_000));
      for (const c of node.status?.conditions ?? []) c.lastHeartbeatTime = heartbeat;
      const lease = benchLease(j, registered);
      lease.spec.renewTime = formatTime(now - 10_000 + (j % 10_000));
      writes.push(store.create('nodes', node), store.create('leases', lease));
    }
    await Promise.all(writes);
  }
  await store.close();
  return (performance.now() - t0) / 1000;
}

function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

async function coldStart(
  db: string,
  rssAfterS: number,
): Promise<{ readyS: number; rssMb: number; rssReadyMb: number; stopS: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      'bin/shepherd',
      '--mode',
      'server',
      '--listen',
      `127.0.0.1:${port}`,
      '--db',
      db,
      '--log-level',
      'warn',
      ...values['server-flags'].split(' ').filter((a) => a !== ''),
    ],
    { cwd: values['server-root'], stdio: 'ignore' },
  );
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before /readyz answered 200`);
      await sleep(10);
    }
    const readyS = (performance.now() - t0) / 1000;
    const rssReadyMb = procSample(child.pid as number).rssMb;
    let rssMb = rssReadyMb;
    for (let s = 0; s < rssAfterS; s++) {
      await sleep(1000);
      rssMb = Math.max(rssMb, procSample(child.pid as number).rssMb);
    }
    // How long a SIGTERM takes to end it in the middle of the controller's first passes.
    const stopAt = performance.now();
    child.kill('SIGTERM');
    await exited(child);
    return { readyS, rssMb, rssReadyMb, stopS: (performance.now() - stopAt) / 1000 };
  } finally {
    child.kill('SIGTERM');
    await exited(child);
  }
}

function exited(child: ChildProcess): Promise<unknown> {
  return new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r),
  );
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-cold-'));
try {
  const built = join(dir, 'built.db');
  const buildS = await buildDb(built);
  const sizeMb = statSync(built).size / 1024 / 1024;
  process.stderr.write(`built ${n} nodes + ${n} leases in ${buildS.toFixed(1)}s (${sizeMb.toFixed(0)} MB)\n`);
  const runs: Array<Awaited<ReturnType<typeof coldStart>>> = [];
  for (let r = 0; r < Number(values.runs); r++) {
    const db = join(dir, `run-${r + 1}.db`);
    for (const suffix of ['', '-wal']) if (existsSync(built + suffix)) copyFileSync(built + suffix, db + suffix);
    const res = await coldStart(db, Number(values['rss-after']));
    process.stderr.write(`run ${r + 1}: ${JSON.stringify(res)}\n`);
    runs.push(res);
    for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
  }
  const each = (f: (x: (typeof runs)[number]) => number, unit: string, digits: number): string =>
    `${median(runs.map(f)).toFixed(digits)} ${unit} (median of ${runs.length}: ${runs.map((x) => f(x).toFixed(digits)).join(', ')})`;
  console.log(
    `Cold start and RSS: ${n} nodes + ${n} leases in SQLite (${sizeMb.toFixed(0)} MB, built in ${buildS.toFixed(0)} s with openSqliteStore), ${values['server-flags'] === '' ? 'default flags' : `server flags ${values['server-flags']}`}, controller in process${values['server-root'] === ROOT ? '' : `, the build in ${values['server-root']}`} (${startedOn})\n`,
  );
  console.log('| figure | measured | target |');
  console.log('|---|---|---|');
  console.log(`| spawn → /readyz 200 | ${each((x) => x.readyS, 's', 2)} | ≤ 3 s |`);
  console.log(`| RSS at /readyz 200 | ${each((x) => x.rssReadyMb, 'MB', 0)} | — |`);
  console.log(
    `| peak RSS over the first ${values['rss-after']} s after ready (informers listed, controller judging) | ${each((x) => x.rssMb, 'MB', 0)} | ≤ 500 MB |`,
  );
  console.log(
    `| SIGTERM → exit at the end of the window (the Suspect pass under way) | ${each((x) => x.stopS, 's', 2)} | — |`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
