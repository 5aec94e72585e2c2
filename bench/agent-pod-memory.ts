import { PodManager } from '../src/agent/pods/pod-manager.js';
import type { PodSink, PodSource } from '../src/agent/pods/pod-source.js';
import type { ApiClient, PodClient } from '../src/client/api-client.js';
import { systemClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/logger.js';
import type { Pod } from '../src/core/pod.js';

// Memory an agent spends per placeholder pod (the fleet simulator's agents hold thousands): a PodManager takes N
// acknowledged-shape pods as the watch delivers them (each a fresh JSON parse, as off the wire), writes their
// status through a stub client (no network), receives the echo of each write, and the heap is compared with the
// same pods held as plain parsed objects. Run: node --expose-gc --import tsx bench/agent-pod-memory.ts [pods]
const N = Number(process.argv[2] ?? 20_000);
const NODE = 'node-1';

function podJson(i: number): string {
  const name = `web-6d4cf56db6-${i.toString(36).padStart(5, '0')}`;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `0f9a1c2e-4b5d-4e6f-8a7b-${i.toString(16).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2026-11-29T12:00:00.000Z',
      labels: { app: 'web', 'pod-template-hash': '6d4cf56db6' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-1', controller: true }],
    },
    spec: {
      nodeName: NODE,
      containers: [{ name: 'web', image: 'nginx:1.27' }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-11-29T12:00:00.000Z' }],
    },
  });
}

function heap(): number {
  for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc) throw new Error('run with node --expose-gc');
  let rv = 1_000_000;
  let writes = 0;
  let sink: PodSink | undefined;
  // The watch event of each write, as the server would send it.
  const echo = (pod: Pod): void => sink?.apply('MODIFIED', pod);
  const pods = {
    updateStatus: async (obj: Pod) => {
      writes++;
      const stored = JSON.parse(
        JSON.stringify({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } }),
      );
      echo(JSON.parse(JSON.stringify(stored)) as Pod);
      return stored as Pod;
    },
  } as unknown as PodClient;
  const client = { pods: () => pods } as unknown as ApiClient;

  const base = heap();
  const plain = Array.from({ length: N }, (_, i) => JSON.parse(podJson(i)) as Pod);
  const plainBytes = heap() - base;
  plain.length = 0;

  const before = heap();
  const source: PodSource = {
    run: (s, signal) => {
      sink = s;
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  };
  const manager = new PodManager({
    client,
    clock: systemClock,
    log: silentLogger,
    config: { nodeName: NODE, allowProcessPods: false, crashLoopBackoff: { initialMs: 10_000, maxMs: 300_000 } },
    source,
    hostIP: () => '10.0.0.1',
  });
  const ac = new AbortController();
  const running = manager.run(ac.signal);
  await new Promise((r) => setImmediate(r));
  const t0 = performance.now();
  sink?.sync(Array.from({ length: N }, (_, i) => JSON.parse(podJson(i)) as Pod));
  while (writes < N) await new Promise((r) => setTimeout(r, 10));
  const ackMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 50));
  const managed = heap() - before;
  const t1 = performance.now();
  const count = manager.podCount();
  const countMs = performance.now() - t1;
  ac.abort();
  await running;
  const kib = (b: number): string => (b / 1024).toFixed(2);
  console.log(`placeholder pods: ${N}; status writes: ${writes}; podCount ${count} in ${countMs.toFixed(1)} ms`);
  console.log(`acknowledged in ${ackMs.toFixed(0)} ms (${((ackMs * 1000) / N).toFixed(1)} µs a pod, stub API)`);
  console.log(`heap per pod in the agent: ${kib(managed / N)} KiB (the Pod object alone: ${kib(plainBytes / N)} KiB)`);
}

await main();
