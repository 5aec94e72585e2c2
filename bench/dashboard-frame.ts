// The dashboard's frame time with 10,000 nodes listed: a real server (SQLite, no controller, so only this script
// writes), 10,000 Nodes and their Leases created through the API, and the Nodes view in Debian's chromium.
// Measured in the page with requestAnimationFrame: frame intervals while the table scrolls, while node status
// updates and lease renewals stream in, and both, plus the load time of the view.
//   npm run bench:dashboard -- [--nodes 10000] [--status-rate 200] [--lease-rate 1000] [--seconds 5]
// Needs `npm run build` (bin/ runs dist/, the server serves dist/ui) and chromium (.ci/ensure-chromium).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpApiClient } from '../src/client/http-client.js';
import type { Lease } from '../src/core/lease.js';
import type { Node } from '../src/core/node.js';
import { launchBrowser } from '../test/support/browser.js';
import { type Frames, inParallel, MEASURE, pace, stats } from './dashboard-measure.js';
import { spawnListening } from './lib.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '10000' },
    'status-rate': { type: 'string', default: '200' },
    'lease-rate': { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '5' },
  },
});
const NODES = Number(values.nodes);
const STATUS_RATE = Number(values['status-rate']);
const LEASE_RATE = Number(values['lease-rate']);
const PHASE_MS = Number(values.seconds) * 1000;
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d'];

const nodeName = (i: number): string => `node-${String(i).padStart(5, '0')}`;
const now = (): string => new Date().toISOString();

function nodeBody(i: number): Parameters<HttpApiClient['nodes']['create']>[0] {
  return {
    metadata: { name: nodeName(i), labels: { 'topology.kubernetes.io/zone': ZONES[i % ZONES.length] as string } },
    spec: {},
    status: { conditions: [ready('True')], podCount: i % 111 },
  };
}

function ready(status: 'True' | 'False'): NonNullable<Node['status']['conditions']>[number] {
  return { type: 'Ready', status, reason: 'Bench', lastHeartbeatTime: now(), lastTransitionTime: now() };
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-dashboard-bench-'));
const server = await spawnListening(
  ['bin/shepherd', '--mode', 'server', '--listen', '127.0.0.1:0', '--db', join(dir, 'd.db'), '--no-controller'].concat([
    '--log-level',
    'warn',
  ]),
  'shepherd',
);
const client = new HttpApiClient({ addresses: [new URL(server.url).host] });
const nodeRv = new Map<number, string>();
const leaseRv = new Map<number, string>();
const browser = await launchBrowser({ width: 1280, height: 900 });
try {
  let t = Date.now();
  await inParallel(NODES, 32, async (i) => {
    nodeRv.set(i, (await client.nodes.create(nodeBody(i))).metadata.resourceVersion);
    const lease = await client.leases().create({
      metadata: { name: nodeName(i) },
      spec: { holderIdentity: nodeName(i), leaseDurationSeconds: 40, renewTime: now() },
    });
    leaseRv.set(i, lease.metadata.resourceVersion);
  });
  process.stdout.write(`created ${NODES} nodes and leases through the API in ${Date.now() - t} ms\n`);

  const { page } = browser;
  t = Date.now();
  await page.goto(`${server.url}/ui/#/nodes`);
  // Polled with evaluate: waitForFunction would eval the predicate inside the page, which the CSP forbids.
  const loaded = `document.querySelector('[data-field="count"]')?.textContent.includes('of ${NODES.toLocaleString('en')} nodes')
    && document.querySelectorAll('tr[data-node]').length > 0`;
  while (!(await page.evaluate<boolean>(loaded))) {
    if (Date.now() - t > 120_000) throw new Error('the Nodes view did not list every node within 2 minutes');
    await new Promise((r) => setTimeout(r, 20));
  }
  const loadMs = Date.now() - t;
  const domRows = await page.evaluate<number>("document.querySelectorAll('tr[data-node]').length");

  const updates = (): { stop(): Promise<[number, number]> } => {
    const status = pace(STATUS_RATE, NODES, async (i) => {
      const body = nodeBody(i);
      const node = await client.nodes.updateStatus({
        ...body,
        metadata: { ...body.metadata, resourceVersion: nodeRv.get(i) as string },
        status: {
          conditions: [ready(Math.random() < 0.1 ? 'False' : 'True')],
          podCount: Math.floor(Math.random() * 111),
        },
      });
      nodeRv.set(i, node.metadata.resourceVersion);
    });
    const leases = pace(LEASE_RATE, NODES, async (i) => {
      const lease: Lease = await client.leases().update({
        metadata: { name: nodeName(i), resourceVersion: leaseRv.get(i) as string },
        spec: { holderIdentity: nodeName(i), leaseDurationSeconds: 40, renewTime: now() },
      });
      leaseRv.set(i, lease.metadata.resourceVersion);
    });
    return { stop: async () => [await status.stop(), await leases.stop()] };
  };
  // A string, not a function: with a string, evaluate runs over CDP and the page's CSP (no eval) does not apply.
  const measure = (px: number): Promise<Frames> =>
    page.evaluate<Frames>(`${MEASURE}(${JSON.stringify({ ms: PHASE_MS, px })})`);

  const rows: string[] = [];
  rows.push(`| idle, no updates | ${stats(await measure(0))}`);
  rows.push(`| scrolling 64 px/frame, no updates | ${stats(await measure(64))}`);
  let load = updates();
  const streaming = await measure(0);
  let [statusRate, leaseRate] = await load.stop();
  rows.push(
    `| updates streaming (${Math.round(statusRate)} status/s + ${Math.round(leaseRate)} leases/s) | ${stats(streaming)}`,
  );
  load = updates();
  const both = await measure(64);
  [statusRate, leaseRate] = await load.stop();
  rows.push(`| scrolling and updates streaming | ${stats(both)}`);
  await page.locator('th.col-heartbeat button').click();
  load = updates();
  const resorting = await measure(0);
  [statusRate, leaseRate] = await load.stop();
  rows.push(`| sorted by heartbeat (re-sorted once a second), updates streaming | ${stats(resorting)}`);

  const heap = await page.evaluate<number>('performance.memory ? performance.memory.usedJSHeapSize : 0');
  process.stdout.write(
    [
      '',
      `Nodes view, ${NODES.toLocaleString('en')} nodes: loaded (list of nodes and leases, first rows drawn) in ${loadMs} ms;`,
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
