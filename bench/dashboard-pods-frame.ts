// The dashboard's Pods view with 10,000 pods: a real server (SQLite, no controller, so only this script writes),
// nodes and pods created through the API (bound at creation), and the Pods view in Debian's chromium. Frame
// intervals are measured in the page as in bench/dashboard-frame.ts: idle, scrolling, pod status writes streaming,
// and both, plus the load time of the view.
//   node --import tsx bench/dashboard-pods-frame.ts [--pods 10000] [--nodes 100] [--status-rate 200] [--seconds 5]
// Needs `npm run build` (bin/ runs dist/, the server serves dist/ui) and chromium (.ci/ensure-chromium).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpApiClient } from '../src/client/http-client.js';
import type { Pod } from '../src/core/pod.js';
import { launchBrowser } from '../test/support/browser.js';
import { type Frames, inParallel, MEASURE, pace, stats } from './dashboard-measure.js';
import { spawnListening } from './lib.js';

const { values } = parseArgs({
  options: {
    pods: { type: 'string', default: '10000' },
    nodes: { type: 'string', default: '100' },
    'status-rate': { type: 'string', default: '200' },
    seconds: { type: 'string', default: '5' },
  },
});
const PODS = Number(values.pods);
const NODES = Number(values.nodes);
const STATUS_RATE = Number(values['status-rate']);
const PHASE_MS = Number(values.seconds) * 1000;
const NAMESPACES = ['shop', 'search', 'billing', 'default'];

const nodeName = (i: number): string => `node-${String(i).padStart(4, '0')}`;
const namespaceOf = (i: number): string => NAMESPACES[i % NAMESPACES.length] as string;
const podName = (i: number): string => `pod-${String(i).padStart(5, '0')}`;

function runningStatus(restarts: number): Pod['status'] {
  const now = new Date().toISOString();
  return {
    phase: 'Running',
    startTime: now,
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
    containerStatuses: [{ name: 'app', ready: true, restartCount: restarts, state: { running: { startedAt: now } } }],
  };
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-dashboard-pods-bench-'));
const server = await spawnListening(
  ['bin/shepherd', '--mode', 'server', '--listen', '127.0.0.1:0', '--db', join(dir, 'd.db'), '--no-controller'].concat([
    '--log-level',
    'warn',
  ]),
  'shepherd',
);
const client = new HttpApiClient({ addresses: [new URL(server.url).host] });
const podRv = new Map<number, string>();
const browser = await launchBrowser({ width: 1280, height: 900 });
try {
  let t = Date.now();
  await inParallel(NODES, 16, async (i) => {
    await client.nodes.create({ metadata: { name: nodeName(i) }, spec: {}, status: {} });
  });
  await inParallel(PODS, 32, async (i) => {
    const pod = await client.pods(namespaceOf(i)).create({
      metadata: { name: podName(i), namespace: namespaceOf(i) },
      spec: { nodeName: nodeName(i % NODES), containers: [{ name: 'app' }] },
      status: { phase: 'Pending' },
    });
    podRv.set(i, pod.metadata.resourceVersion);
  });
  process.stdout.write(`created ${NODES} nodes and ${PODS} pods through the API in ${Date.now() - t} ms\n`);

  const { page } = browser;
  t = Date.now();
  await page.goto(`${server.url}/ui/#/pods`);
  // Polled with evaluate: waitForFunction would eval the predicate inside the page, which the CSP forbids.
  const loaded = `document.querySelector('[data-field="count"]')?.textContent.includes('of ${PODS.toLocaleString('en')} pods')
    && document.querySelectorAll('tr[data-pod]').length > 0`;
  while (!(await page.evaluate<boolean>(loaded))) {
    if (Date.now() - t > 120_000) throw new Error('the Pods view did not list every pod within 2 minutes');
    await new Promise((r) => setTimeout(r, 20));
  }
  const loadMs = Date.now() - t;
  const domRows = await page.evaluate<number>("document.querySelectorAll('tr[data-pod]').length");

  const updates = (): { stop(): Promise<number> } =>
    pace(STATUS_RATE, PODS, async (i) => {
      const pod = await client.pods(namespaceOf(i)).updateStatus({
        metadata: { name: podName(i), namespace: namespaceOf(i), resourceVersion: podRv.get(i) as string },
        spec: { containers: [{ name: 'app' }] },
        status: runningStatus(Math.floor(Math.random() * 5)),
      });
      podRv.set(i, pod.metadata.resourceVersion);
    });
  // A string, not a function: with a string, evaluate runs over CDP and the page's CSP (no eval) does not apply.
  const measure = (px: number): Promise<Frames> =>
    page.evaluate<Frames>(`${MEASURE}(${JSON.stringify({ ms: PHASE_MS, px })})`);

  const rows: string[] = [];
  rows.push(`| idle, no updates | ${stats(await measure(0))}`);
  rows.push(`| scrolling 64 px/frame, no updates | ${stats(await measure(64))}`);
  let load = updates();
  const streaming = await measure(0);
  let rate = await load.stop();
  rows.push(`| pod status writes streaming (${Math.round(rate)}/s) | ${stats(streaming)}`);
  load = updates();
  const both = await measure(64);
  rate = await load.stop();
  rows.push(`| scrolling and writes streaming (${Math.round(rate)}/s) | ${stats(both)}`);

  const heap = await page.evaluate<number>('performance.memory ? performance.memory.usedJSHeapSize : 0');
  process.stdout.write(
    [
      '',
      `Pods view, ${PODS.toLocaleString('en')} pods on ${NODES} nodes: loaded (list, first rows drawn) in ${loadMs} ms;`,
      `${domRows} rows in the DOM; JS heap ${(heap / 2 ** 20).toFixed(0)} MiB. Frame intervals (ms), ${PHASE_MS / 1000} s a phase:`,
      '',
      '| phase | frames | p50 | p95 | p99 | max | > 25 ms | > 50 ms | long frames: script / render ms |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
} finally {
  await browser.close();
  await client.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
