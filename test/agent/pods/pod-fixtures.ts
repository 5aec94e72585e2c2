import { PodManager } from '../../../src/agent/pods/pod-manager.js';
import { nodePodWatch } from '../../../src/agent/pods/node-pod-watch.js';
import type { Writable } from '../../../src/client/api-client.js';
import { recordingLogger } from '../../../src/core/logger.js';
import type { Container, Pod, RestartPolicy } from '../../../src/core/pod.js';
import { FakeApiClient } from '../../support/fake-api-client.js';
import { FakeClock, flush } from '../../support/fake-clock.js';
import { fixedRandom } from '../agent-fixtures.js';
import { FakeLauncher } from './fake-launcher.js';

export const NODE = 'node-1';
export const HOST_IP = '10.0.0.1';

export interface PodOptions {
  node?: string;
  containers?: Container[];
  restartPolicy?: RestartPolicy;
  grace?: number;
}

/** A pod body for create: bound to node-1 unless told, one placeholder container unless told. */
export function podBody(name: string, options: PodOptions = {}): Writable<Pod> {
  return {
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: options.node ?? NODE,
      containers: options.containers ?? [{ name: 'main' }],
      ...(options.restartPolicy === undefined ? {} : { restartPolicy: options.restartPolicy }),
      ...(options.grace === undefined ? {} : { terminationGracePeriodSeconds: options.grace }),
    },
    status: { phase: 'Pending' },
  };
}

export function processContainer(name = 'main', command = ['server'], args: string[] = []): Container {
  return { name, command, args, env: [{ name: 'GREETING', value: 'hi' }] };
}

export interface Harness {
  clock: FakeClock;
  client: FakeApiClient;
  launcher: FakeLauncher;
  log: ReturnType<typeof recordingLogger>;
  manager: PodManager;
  stop(): Promise<void>;
  /** Starts a new manager (an agent restart) over the same API and launcher. */
  restart(): Promise<void>;
  create(name: string, options?: PodOptions): Promise<Pod>;
  pod(name: string): Pod | undefined;
  statusWrites(name?: string): number;
}

export interface HarnessOptions {
  allowProcessPods?: boolean;
  client?: FakeApiClient;
  clock?: FakeClock;
}

/** A PodManager for node-1 over FakeApiClient, fed by the real node pod watch, with a fake process launcher. */
export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = options.clock ?? new FakeClock();
  const client = options.client ?? new FakeApiClient({ now: () => clock.now() });
  if (!client.data.nodes.has(NODE)) client.put('nodes', { metadata: { name: NODE }, spec: {}, status: {} });
  const launcher = new FakeLauncher();
  const log = recordingLogger();
  const build = (): PodManager =>
    new PodManager({
      client,
      clock,
      log,
      config: {
        nodeName: NODE,
        allowProcessPods: options.allowProcessPods ?? true,
        crashLoopBackoff: { initialMs: 10_000, maxMs: 300_000 },
      },
      source: nodePodWatch({ client, clock, random: fixedRandom(0), log, nodeName: NODE }),
      hostIP: () => HOST_IP,
      launcher,
    });
  let ac = new AbortController();
  let manager = build();
  let running = manager.run(ac.signal);
  await flush();
  const h: Harness = {
    clock,
    client,
    launcher,
    log,
    get manager() {
      return manager;
    },
    stop: async () => {
      ac.abort();
      await running;
    },
    restart: async () => {
      ac.abort();
      await running;
      ac = new AbortController();
      manager = build();
      running = manager.run(ac.signal);
      await flush();
    },
    create: async (name, o) => {
      const pod = await client.pods('default').create(podBody(name, o));
      await flush();
      return pod;
    },
    pod: (name) => client.data.pods.get(`default/${name}`) as unknown as Pod | undefined,
    statusWrites: (name) =>
      client.callsOf('pods', 'updateStatus').filter((c) => name === undefined || c.name === name).length,
  };
  return h;
}
