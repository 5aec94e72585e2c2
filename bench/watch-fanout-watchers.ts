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
const { url, rv, watchers } = workerData;
const KEY = Buffer.from('"resourceVersion":"');
const BOOKMARK = Buffer.from('{"type":"BOOKMARK"');
const now = () => Number(process.hrtime.bigint()) / 1e6;
const got = [];
const requests = [];
let open = 0;
let stopping = false;
for (let i = 0; i < watchers; i++) {
  const revs = [];
  const times = [];
  got.push({ revs, times });
  let tail;
  const req = http.get(url + '/api/v1/leases?watch=true&resourceVersion=' + rv, { agent: false }, (res) => {
    if (res.statusCode !== 200) parentPort.postMessage({ error: 'a watch answered ' + res.statusCode });
    if (++open === watchers) parentPort.postMessage({ ready: true });
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
          revs.push(n);
          times.push(t);
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
  for (const r of requests) r.destroy();
  const out = got.map(({ revs, times }) => ({ revs: Float64Array.from(revs), times: Float64Array.from(times) }));
  parentPort.postMessage({ arrivals: out }, out.flatMap((a) => [a.revs.buffer, a.times.buffer]));
});
`;

export interface WatcherGroup {
  /** Closes every watch; per watcher, resourceVersion → arrival time (nowMs) of each event it received. */
  stop(): Promise<Map<number, number>[]>;
}

interface FromWorker {
  ready?: boolean;
  error?: string;
  arrivals?: { revs: Float64Array; times: Float64Array }[];
}

/** Opens `watchers` watches of leases after `rv` on a worker thread; resolves once every one answered. */
export function startWatchers(url: string, rv: string, watchers: number): Promise<WatcherGroup> {
  const worker = new Worker(WORKER, { eval: true, workerData: { url, rv, watchers } });
  let done: ((a: Map<number, number>[]) => void) | undefined;
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
        done?.(m.arrivals.map(({ revs, times }) => new Map(Array.from(revs, (v, i) => [v, times[i] as number]))));
      }
    });
  });
}
