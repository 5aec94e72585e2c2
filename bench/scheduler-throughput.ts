/**
 * The scheduler's throughput (BENCHMARKS.md, scheduler): pods bound per second into a cluster of N Ready nodes in
 * three zones, with the scheduler running as in the server, over the in-process client on a real SQLite store.
 *
 *   node --import tsx bench/scheduler-throughput.ts [--nodes 10000] [--pods 10000]
 *
 * 1. Decisions only: the scheduler over caches fed by hand and a client whose bindings succeed at once, so the
 *    figure is the scheduler's own cost per pod (filtering and scoring the sampled nodes, the assume cache, the
 *    queue), nothing else.
 * 2. End to end in one process: nodes and pending pods (all owned by one Deployment, so spreading counts) are
 *    written to the store first; then the scheduler starts, and the clock runs from the moment its caches have
 *    synced until the informer has seen every pod bound. Reported: binds/s, the spread per zone and node, and CPU
 *    per pod (process CPU time, including the store, the registry and the informers, which share the process with
 *    the scheduler as they do in the server).
 * 3. A Deployment of --pods replicas placed into the same number of nodes (a fresh store): the deployment controller
 *    creates the pods and the scheduler binds them, on shared informers as in the server; timed from the Deployment's
 *    creation until the informer has seen every pod bound. Run with --expose-gc (`npm run bench:scheduler`) and it
 *    also reports the process's heap and RSS growth per pod once they are all stored, bound and held by the
 *    informers: the server's memory per pod with its controllers in process (SQLite's page cache included in RSS).
 *    `--only deployment` runs this part alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LocalApiClient } from '../src/client/local-client.js';
import { DeploymentController } from '../src/controller/deployment/deployment-controller.js';
import { Scheduler } from '../src/controller/scheduler/scheduler.js';
import { SharedInformers } from '../src/controller/shared-informers.js';
import { formatTime, systemClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/logger.js';
import { ZONE_LABEL, type Node } from '../src/core/node.js';
import type { Pod } from '../src/core/pod.js';
import { systemRandom } from '../src/core/random.js';
import { Registry } from '../src/registry/registry.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '10000' },
    pods: { type: 'string', default: '10000' },
    only: { type: 'string' },
  },
});
const NODES = Number(values.nodes);
const PODS = Number(values.pods);
const ZONES = 3;

type Handler<T> = (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T, old: T | undefined) => void;

/** A cache the bench fills by hand (the scheduler reads only these three methods). */
class HandFed<T> {
  readonly items = new Map<string, T>();
  handler: Handler<T> | undefined;
  onEvent(h: Handler<T>): () => void {
    this.handler = h;
    return () => undefined;
  }
  waitForSync(): Promise<void> {
    return Promise.resolve();
  }
  get(key: string): T | undefined {
    return this.items.get(key);
  }
  set(key: string, obj: T): void {
    const old = this.items.get(key);
    this.items.set(key, obj);
    this.handler?.(old === undefined ? 'ADDED' : 'MODIFIED', obj, old);
  }
}

async function decisionsOnly(at: string): Promise<void> {
  const nodes = new HandFed<Node>();
  const pods = new HandFed<Pod>();
  let bound = 0;
  let done: () => void = () => undefined;
  const allBound = new Promise<void>((r) => (done = r));
  const client = {
    pods: () => ({
      bind: async (name: string, nodeName: string) => {
        const key = `default/${name}`;
        const p = pods.get(key) as Pod;
        const next = { ...p, spec: { ...p.spec, nodeName } };
        pods.set(key, next);
        if (++bound === PODS) done();
        return next;
      },
    }),
    events: { create: async () => ({}) },
  } as unknown as ConstructorParameters<typeof Scheduler>[0]['client'];
  const scheduler = new Scheduler({ client, nodes, pods, clock: systemClock, log: silentLogger });
  for (let j = 0; j < NODES; j++) nodes.set(`node-${j}`, node(j, at));
  const stop = new AbortController();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const running = scheduler.run(stop.signal);
  for (let j = 0; j < PODS; j++) pods.set(`default/web-${j}`, pod(j, at));
  await allBound;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  console.log(`decisions only: ${PODS} pods into ${NODES} nodes`);
  console.log(`  ${Math.round(PODS / seconds)} pods/s, CPU ${((cpu.user + cpu.system) / PODS).toFixed(0)} µs per pod`);
  stop.abort();
  await running;
}

async function main(): Promise<void> {
  if (values.only === 'deployment') return deploymentPlacement();
  await decisionsOnly(formatTime(Date.now()));
  await endToEnd();
  await deploymentPlacement();
}

async function endToEnd(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shepherd-sched-'));
  const store = await openSqliteStore({ path: join(dir, 'db.sqlite') });
  const at = formatTime(Date.now());
  for (let i = 0; i < NODES; i += 5000) {
    const writes: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(NODES, i + 5000); j++) writes.push(store.create('nodes', node(j, at)));
    await Promise.all(writes);
  }
  for (let i = 0; i < PODS; i += 5000) {
    const writes: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(PODS, i + 5000); j++) writes.push(store.create('pods', pod(j, at)));
    await Promise.all(writes);
  }
  const registry = new Registry({ store, clock: systemClock, random: systemRandom, log: silentLogger });
  const client = new LocalApiClient({ registry });
  const informers = new SharedInformers({ client, clock: systemClock, log: silentLogger, random: systemRandom });
  const scheduler = new Scheduler({
    client,
    nodes: informers.nodes(),
    pods: informers.pods(),
    clock: systemClock,
    log: silentLogger,
    ...(process.env.BIND_CONCURRENCY ? { config: { bindConcurrency: Number(process.env.BIND_CONCURRENCY) } } : {}),
  });
  let bound = 0;
  let done: () => void = () => undefined;
  const allBound = new Promise<void>((r) => (done = r));
  informers.pods().onEvent((type, p, old) => {
    if (type === 'MODIFIED' && p.spec.nodeName !== undefined && old?.spec.nodeName === undefined && ++bound === PODS)
      done();
  });
  const stop = new AbortController();
  const informing = informers.start(stop.signal);
  await informers.waitForSync(stop.signal);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const running = scheduler.run(stop.signal);
  await allBound;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const perZone = new Map<string, number>();
  const perNode = new Map<string, number>();
  for (const p of informers.pods().list()) {
    const n = p.spec.nodeName as string;
    perNode.set(n, (perNode.get(n) ?? 0) + 1);
    const zone = informers.nodes().get(n)?.metadata.labels?.[ZONE_LABEL] ?? '';
    perZone.set(zone, (perZone.get(zone) ?? 0) + 1);
  }
  const counts = [...perNode.values()];
  console.log(`end to end (in-process client, SQLite): ${PODS} pods into ${NODES} nodes (${ZONES} zones)`);
  console.log(`  bound in ${seconds.toFixed(2)} s: ${Math.round(PODS / seconds)} binds/s`);
  console.log(`  CPU ${((cpu.user + cpu.system) / PODS).toFixed(0)} µs per pod (whole process)`);
  console.log(`  per zone: ${[...perZone].map(([z, c]) => `${z}=${c}`).join(' ')}`);
  console.log(`  per node: min ${Math.min(...counts)}, max ${Math.max(...counts)} over ${perNode.size} nodes`);
  stop.abort();
  await running;
  await informing;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

function memory(): { heap: number; rss: number } {
  for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

async function deploymentPlacement(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shepherd-deploy-'));
  const store = await openSqliteStore({ path: join(dir, 'db.sqlite') });
  const at = formatTime(Date.now());
  for (let i = 0; i < NODES; i += 5000) {
    const writes: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(NODES, i + 5000); j++) writes.push(store.create('nodes', node(j, at)));
    await Promise.all(writes);
  }
  const deps = { clock: systemClock, log: silentLogger, random: systemRandom };
  const registry = new Registry({ store, ...deps });
  const client = new LocalApiClient({ registry });
  const informers = new SharedInformers({ client, ...deps });
  const [nodes, pods, deployments] = [informers.nodes(), informers.pods(), informers.deployments()];
  const scheduler = new Scheduler({ client, nodes, pods, ...deps });
  const controller = new DeploymentController({ client, deployments, pods, nodes, ...deps });
  let bound = 0;
  let done: () => void = () => undefined;
  const allBound = new Promise<void>((r) => (done = r));
  pods.onEvent((type, p, old) => {
    if (type === 'MODIFIED' && p.spec.nodeName !== undefined && old?.spec.nodeName === undefined && ++bound === PODS)
      done();
  });
  const stop = new AbortController();
  const informing = informers.start(stop.signal);
  await informers.waitForSync(stop.signal);
  const running = [scheduler.run(stop.signal), controller.run(stop.signal)];
  const before = memory();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await client.deployments('default').create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: PODS,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
    },
    status: {},
  });
  await allBound;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const zones = new Map<string, number>();
  for (const p of pods.list()) {
    const zone = nodes.get(p.spec.nodeName as string)?.metadata.labels?.[ZONE_LABEL] ?? '';
    zones.set(zone, (zones.get(zone) ?? 0) + 1);
  }
  console.log(`a Deployment of ${PODS} replicas into ${NODES} nodes (deployment controller + scheduler, SQLite)`);
  console.log(`  created and bound in ${seconds.toFixed(2)} s: ${Math.round(PODS / seconds)} pods/s`);
  console.log(`  CPU ${((cpu.user + cpu.system) / PODS).toFixed(0)} µs per pod (whole process)`);
  console.log(`  per zone: ${[...zones].map(([z, c]) => `${z}=${c}`).join(' ')}`);
  if ((globalThis as { gc?: unknown }).gc) {
    await new Promise((r) => setTimeout(r, 500));
    const after = memory();
    const kib = (b: number): string => (b / 1024 / PODS).toFixed(2);
    console.log(
      `  memory per pod stored, bound and in the informers: heap ${kib(after.heap - before.heap)} KiB, ` +
        `RSS ${kib(after.rss - before.rss)} KiB`,
    );
  }
  stop.abort();
  await Promise.all(running);
  await informing;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

function node(j: number, at: string): Node {
  const name = `node-${String(j).padStart(6, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `00000000-0000-4000-8000-${String(j).padStart(12, '0')}`,
      resourceVersion: '',
      creationTimestamp: at,
      labels: { [ZONE_LABEL]: `zone-${j % ZONES}` },
    },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: at, lastTransitionTime: at }] },
  };
}

function pod(j: number, at: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-${j}`,
      namespace: 'default',
      uid: `10000000-0000-4000-8000-${String(j).padStart(12, '0')}`,
      resourceVersion: '',
      creationTimestamp: at,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'web-uid', controller: true }],
    },
    spec: { containers: [{ name: 'app' }], restartPolicy: 'Always', terminationGracePeriodSeconds: 30 },
    status: { phase: 'Pending' },
  };
}

await main();
