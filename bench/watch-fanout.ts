// Benchmark 4 (BENCHMARKS.md): watch fan-out. 100 watchers on /api/v1/leases?watch=true while a writer renews
// leases at 2,000 writes/s; latency from the write to each watcher's receipt of its event.
//   npm run bench:watch -- [--watchers 100] [--rate 2000] [--seconds 10] [--runs 3] [--server-prof DIR]
// Both ends are timed on this process's monotonic clock: "sent" when the PUT leaves, "acked" when its 200 arrives
// (the commit is durable then), "received" when a watcher's socket delivers the line. The watchers run on a worker
// thread (bench/watch-fanout-watchers.ts) and only pick out the resourceVersion, so the client side adds as little
// as possible; the server runs --no-controller so only the watch path is measured.
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { LatencyHistogram } from '../src/fleet/latency-histogram.js';
import { createLeases, median, spawnListening } from './lib.js';
import { machine, threadCpu } from './proc-stats.js';
import { nowMs, startWatchers } from './watch-fanout-watchers.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

// Read before the runs: the load and speed probe describe the machine they start on.
const startedOn = machine();

const { values } = parseArgs({
  options: {
    watchers: { type: 'string', default: '100' },
    rate: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    leases: { type: 'string', default: '1000' },
    // Writes a V8 CPU profile of each server process into this directory (node --cpu-prof).
    'server-prof': { type: 'string' },
  },
});
const W = Number(values.watchers);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const RV = /"resourceVersion":"(\d+)"/;

interface RunResult {
  writesPerS: number;
  /** The server's main-thread CPU over the write window, per acknowledged write (its 100 deliveries included). */
  serverUsPerWrite: number;
  /** Group commits in the window and their mean size. */
  commits: number;
  meanBatch: number;
  /** Mean time of one group commit (the transaction and its fsync, on the event loop). */
  meanCommitMs: number;
  /** The server's event-loop delay over the write window (its /metrics). */
  loopP99Ms: number;
  loopMaxMs: number;
  /** The watchers' thread's event-loop delay: a receipt can be stamped this late by the client itself. */
  watcherLoopP99Ms: number;
  watcherLoopMaxMs: number;
  watcherGcMaxMs: number;
  /**
   * The writer's thread's event-loop delay: it stamps each acknowledgement, so a late stamp would shorten the
   * commit → delivery figure, not lengthen it; its max bounds how much.
   */
  writerLoopMaxMs: number;
  /** Cores this process used over the write window: the writer's thread, and the rest (the watchers' worker). */
  writerCores: number;
  watcherCores: number;
  delivered: number;
  expected: number;
  fromSent: LatencyHistogram;
  fromAck: LatencyHistogram;
}

/** Count and sum of the server's commit batch-size histogram, and its event-loop delay since the last scrape. */
async function serverStats(
  url: string,
): Promise<{ count: number; sum: number; commitS: number; loopP99Ms: number; loopMaxMs: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    count: value('shepherd_store_commit_batch_size_count'),
    sum: value('shepherd_store_commit_batch_size_sum'),
    commitS: value('shepherd_store_commit_duration_seconds_sum'),
    loopP99Ms: value('shepherd_event_loop_delay_p99_seconds') * 1000,
    loopMaxMs: value('shepherd_event_loop_delay_max_seconds') * 1000,
  };
}

async function run(url: string, pid: number, leases: { name: string; rv: string }[]): Promise<RunResult> {
  const current = (await (await fetch(`${url}/api/v1/leases`)).json()) as { metadata: { resourceVersion: string } };
  // Each watcher sees every write: the window's writes and a margin.
  const watchers = await startWatchers(url, current.metadata.resourceVersion, W, RATE * SECONDS * 1.25);
  await sleep(500);
  const pool = new Pool(url, { connections: 64 });
  const sent = new Map<number, { sent: number; acked: number }>();
  const inflight: Promise<void>[] = [];
  // At most MAX_INFLIGHT writes outstanding: an open-loop writer against a server that falls behind would
  // measure its own growing queue, not the watch path; the achieved rate is reported instead.
  const MAX_INFLIGHT = 128;
  let outstanding = 0;
  const commits0 = await serverStats(url);
  const cpu0 = threadCpu(pid).mainS;
  const own0 = threadCpu(process.pid);
  const writerLoop = monitorEventLoopDelay({ resolution: 1 });
  writerLoop.enable();
  const t0 = performance.now();
  let issued = 0;
  let next = 0;
  while (performance.now() - t0 < SECONDS * 1000) {
    const due = Math.floor(((performance.now() - t0) / 1000) * RATE);
    for (; issued < due && outstanding < MAX_INFLIGHT; issued++) {
      outstanding++;
      const lease = leases[next++ % leases.length] as { name: string; rv: string };
      const body = JSON.stringify({
        metadata: { name: lease.name, namespace: 'node-lease', resourceVersion: lease.rv },
        spec: { holderIdentity: lease.name, leaseDurationSeconds: 40, renewTime: new Date().toISOString() },
      });
      const s = nowMs();
      inflight.push(
        pool
          .request({
            method: 'PUT',
            path: `/api/v1/leases/${lease.name}`,
            headers: { 'content-type': 'application/json' },
            body,
          })
          .then(async (res) => {
            const text = await res.body.text();
            outstanding--;
            const acked = nowMs();
            const m = RV.exec(text);
            if (res.statusCode === 200 && m) {
              lease.rv = m[1] as string;
              sent.set(Number(m[1]), { sent: s, acked });
            }
          }),
      );
    }
    if (issued < due) issued = due; // writes the server could not take in time are skipped, not queued
    await sleep(2);
  }
  await Promise.all(inflight);
  writerLoop.disable();
  const writesPerS = sent.size / ((performance.now() - t0) / 1000);
  const serverUsPerWrite = ((threadCpu(pid).mainS - cpu0) * 1e6) / sent.size;
  const own1 = threadCpu(process.pid);
  const windowS = (performance.now() - t0) / 1000;
  const writerCores = (own1.mainS - own0.mainS) / windowS;
  const watcherCores = (own1.otherS - own0.otherS) / windowS;
  const commits1 = await serverStats(url);
  const commits = commits1.count - commits0.count;
  const meanBatch = (commits1.sum - commits0.sum) / commits;
  await sleep(1000);
  const { arrivals, delay } = await watchers.stop();
  await pool.close();
  const fromSent = new LatencyHistogram();
  const fromAck = new LatencyHistogram();
  let delivered = 0;
  for (const a of arrivals) {
    for (const [rv, w] of sent) {
      const t = a.get(rv);
      if (t === undefined) continue;
      delivered++;
      fromSent.record(t - w.sent);
      fromAck.record(Math.max(0, t - w.acked));
    }
  }
  return {
    writesPerS,
    serverUsPerWrite,
    commits,
    meanBatch,
    meanCommitMs: ((commits1.commitS - commits0.commitS) * 1000) / commits,
    loopP99Ms: commits1.loopP99Ms,
    loopMaxMs: commits1.loopMaxMs,
    watcherLoopP99Ms: delay.p99Ms,
    watcherLoopMaxMs: delay.maxMs,
    watcherGcMaxMs: delay.gcMaxMs,
    writerLoopMaxMs: writerLoop.max / 1e6,
    writerCores,
    watcherCores,
    delivered,
    expected: sent.size * W,
    fromSent,
    fromAck,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-watch-'));
const results: RunResult[] = [];
try {
  for (let r = 0; r < Number(values.runs); r++) {
    const prof = values['server-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', values['server-prof']];
    const s = await spawnListening(
      [
        ...prof,
        'bin/shepherd',
        '--mode',
        'server',
        '--listen',
        '127.0.0.1:0',
        '--db',
        join(dir, `w${r}.db`),
        '--no-controller',
        '--log-level',
        'warn',
      ],
      'shepherd',
    );
    try {
      const leases = await createLeases(s.url, Number(values.leases));
      const res = await run(s.url, s.child.pid as number, leases);
      process.stderr.write(
        `run ${r + 1}: ${res.writesPerS.toFixed(0)} writes/s, server ${res.serverUsPerWrite.toFixed(0)} µs CPU/write, ${res.commits} commits of ${res.meanBatch.toFixed(1)} (${res.meanCommitMs.toFixed(1)} ms each), loop delay p99 ${res.loopP99Ms.toFixed(1)} max ${res.loopMaxMs.toFixed(1)} ms (watchers' ${res.watcherLoopP99Ms.toFixed(1)} / ${res.watcherLoopMaxMs.toFixed(1)}, longest GC ${res.watcherGcMaxMs.toFixed(1)}; writer's max ${res.writerLoopMaxMs.toFixed(1)}), client cores ${res.writerCores.toFixed(2)} + ${res.watcherCores.toFixed(2)}, delivered ${res.delivered}/${res.expected}, from write p50 ${res.fromSent.quantile(0.5).toFixed(1)} p99 ${res.fromSent.quantile(0.99).toFixed(1)} ms, from ack p99 ${res.fromAck.quantile(0.99).toFixed(1)} ms\n`,
      );
      results.push(res);
    } finally {
      await s.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const med = (f: (r: RunResult) => number): string => median(results.map(f)).toFixed(1);
console.log(
  `Watch fan-out: ${W} watchers on leases, target ${RATE} writes/s for ${SECONDS} s, ${results.length} runs, medians (${startedOn})\n`,
);
console.log('| figure | measured | target |');
console.log('|---|---|---|');
console.log(`| writes/s achieved | ${med((r) => r.writesPerS)} | ${RATE} |`);
console.log(
  `| server main-thread CPU per write (100 deliveries included) | ${med((r) => r.serverUsPerWrite)} µs | — |`,
);
console.log(
  `| bench process: writer thread / other threads (watchers), cores | ${median(results.map((r) => r.writerCores)).toFixed(2)} / ${median(results.map((r) => r.watcherCores)).toFixed(2)} | — |`,
);
console.log(
  `| server event-loop delay over the window, p99 / max ms | ${med((r) => r.loopP99Ms)} / ${med((r) => r.loopMaxMs)} | — |`,
);
console.log(
  `| the watchers' thread: event-loop delay p99 / max, longest GC, ms (how late the client itself may stamp a receipt) | ${med((r) => r.watcherLoopP99Ms)} / ${med((r) => r.watcherLoopMaxMs)}, ${med((r) => r.watcherGcMaxMs)} | — |`,
);
console.log(
  `| the writer's thread (it stamps the acknowledgements): event-loop delay max, ms | ${med((r) => r.writerLoopMaxMs)} | — |`,
);
console.log(
  `| group commits, mean writes per commit, mean commit ms | ${med((r) => r.commits)}, ${med((r) => r.meanBatch)}, ${med((r) => r.meanCommitMs)} | — |`,
);
console.log(`| events delivered / expected | ${results.map((r) => `${r.delivered}/${r.expected}`).join(', ')} | all |`);
console.log(
  `| PUT sent → watcher receipt, p50 / p99 / max ms | ${med((r) => r.fromSent.quantile(0.5))} / ${med((r) => r.fromSent.quantile(0.99))} / ${med((r) => r.fromSent.max)} | — |`,
);
console.log(
  `| commit acked → watcher receipt (commit → delivery), p50 / p99 ms | ${med((r) => r.fromAck.quantile(0.5))} / ${med((r) => r.fromAck.quantile(0.99))} | p99 ≤ 20 ms |`,
);
