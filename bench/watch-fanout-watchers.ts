// The watchers of bench/watch-fanout.ts, on a thread of their own: 100 clients parsing ~200k NDJSON lines/s on the
// writer's thread delayed the writer's own timestamps and each other's, so the bench measured its client as much as
// the server. Each watcher is a plain node:http GET (llhttp in C++, not undici's wasm parser) that scans the raw
// bytes for the resourceVersion of each line without building strings. Arrivals are stamped with
// process.hrtime, the same monotonic clock the writer's thread stamps its PUTs with.
import { Worker } from 'node:worker_threads';

/** Monotonic milliseconds, comparable across the threads of this process (performance.now() is per thread). */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { monitorEventLoopDelay, PerformanceObserver } = require('node:perf_hooks');
const { url, rv, watchers, expected } = workerData;
// This thread's own event-loop delay and its longest garbage collection: a receipt stamped late because this thread
// was busy, collecting or descheduled is the client's delay, not the server's.
const loop = monitorEventLoopDelay({ resolution: 1 });
let gcMaxMs = 0;
const gcs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, e.duration);
});
const KEY = Buffer.from('"resourceVersion":"');
const BOOKMARK = Buffer.from('{"type":"BOOKMARK"');
const now = () => Number(process.hrtime.bigint()) / 1e6;
const got = [];
const requests = [];
let open = 0;
let stopping = false;
for (let i = 0; i < watchers; i++) {
  // Arrivals go into typed arrays sized for the run up front: growing 200 JS arrays of up to 16k numbers kept them
  // in the young generation, and each scavenge copied them all (20-90 ms pauses on this thread, a p99 of 100+ ms).
  const w = { n: 0, revs: new Float64Array(expected), times: new Float64Array(expected) };
  got.push(w);
  const add = (rev, t) => {
    if (w.n === w.revs.length) {
      const revs = new Float64Array(w.n * 2);
      const times = new Float64Array(w.n * 2);
      revs.set(w.revs);
      times.set(w.times);
      w.revs = revs;
      w.times = times;
    }
    w.revs[w.n] = rev;
    w.times[w.n++] = t;
  };
  let tail;
  const req = http.get(url + '/api/v1/leases?watch=true&resourceVersion=' + rv, { agent: false }, (res) => {
    if (res.statusCode !== 200) parentPort.postMessage({ error: 'a watch answered ' + res.statusCode });
    if (++open === watchers) {
      loop.enable();
      gcs.observe({ entryTypes: ['gc'] });
      parentPort.postMessage({ ready: true });
    }
    res.on('data', (chunk) => {
      const t = now();
      let b = chunk;
      if (tail !== undefined) {
        b = Buffer.concat([tail, chunk]);
        tail = undefined;
      }
      let start = 0;
      for (;;) {
        const nl = b.indexOf(10, start);
        if (nl < 0) break;
        const k = b.indexOf(KEY, start);
        const end = Math.min(start + BOOKMARK.length, nl);
        if (k >= 0 && k < nl && b.compare(BOOKMARK, 0, BOOKMARK.length, start, end) !== 0) {
          let n = 0;
          for (let j = k + KEY.length; j < nl; j++) {
            const c = b[j];
            if (c < 48 || c > 57) break;
            n = n * 10 + c - 48;
          }
          add(n, t);
        }
        start = nl + 1;
      }
      if (start < b.length) tail = b.subarray(start);
    });
    res.on('error', () => {});
  });
  req.on('error', (e) => {
    if (!stopping) parentPort.postMessage({ error: String(e) });
  });
  requests.push(req);
}
parentPort.on('message', () => {
  stopping = true;
  loop.disable();
  gcs.disconnect();
  for (const r of requests) r.destroy();
  const out = got.map((w) => ({ revs: w.revs.slice(0, w.n), times: w.times.slice(0, w.n) }));
  const delay = { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6, gcMaxMs };
  parentPort.postMessage({ arrivals: out, delay }, out.flatMap((a) => [a.revs.buffer, a.times.buffer]));
});
`;

/** The watchers' thread over the watch: its event-loop delay and its longest garbage collection, in ms. */
export interface WatcherDelay {
  p99Ms: number;
  maxMs: number;
  gcMaxMs: number;
}

export interface WatcherGroup {
  /**
   * Closes every watch; per watcher, resourceVersion → arrival time (nowMs) of each event it received, and the
   * watchers' own event-loop delay (how late a stamp could be on the client's side).
   */
  stop(): Promise<{ arrivals: Map<number, number>[]; delay: WatcherDelay }>;
}

interface FromWorker {
  ready?: boolean;
  error?: string;
  arrivals?: { revs: Float64Array; times: Float64Array }[];
  delay?: WatcherDelay;
}

/**
 * Opens `watchers` watches of leases after `rv` on a worker thread; resolves once every one answered. `expected`:
 * the events each watcher should receive (its arrival arrays are sized for it and grow if it is exceeded).
 */
export function startWatchers(url: string, rv: string, watchers: number, expected: number): Promise<WatcherGroup> {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { url, rv, watchers, expected: Math.max(1024, Math.ceil(expected)) },
  });
  let done: ((r: { arrivals: Map<number, number>[]; delay: WatcherDelay }) => void) | undefined;
  return new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (m: FromWorker) => {
      if (m.error !== undefined) process.stderr.write(`watcher: ${m.error}\n`);
      if (m.ready === true) {
        resolve({
          stop: () =>
            new Promise((r) => {
              done = r;
              worker.postMessage('stop');
            }),
        });
      }
      if (m.arrivals !== undefined) {
        void worker.terminate();
        done?.({
          arrivals: m.arrivals.map(({ revs, times }) => new Map(Array.from(revs, (v, i) => [v, times[i] as number]))),
          delay: m.delay ?? { p99Ms: NaN, maxMs: NaN, gcMaxMs: NaN },
        });
      }
    });
  });
}
