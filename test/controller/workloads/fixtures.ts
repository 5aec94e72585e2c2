import type { ApiClient, PodClient } from '../../../src/client/api-client.js';
import { SharedInformers } from '../../../src/controller/shared-informers.js';
import type { Deployment, DeploymentSpec } from '../../../src/core/deployment.js';
import { recordingLogger, type RecordedLine } from '../../../src/core/logger.js';
import { ZONE_LABEL, type Node, type NodeCondition, type Taint } from '../../../src/core/node.js';
import type { Pod, PodCondition, Toleration } from '../../../src/core/pod.js';
import { FakeApiClient } from '../../support/fake-api-client.js';
import { FakeClock, flush } from '../../support/fake-clock.js';

/** Builders and a harness shared by the workload controllers' tests: a FakeApiClient seen through real informers. */

export interface NodeInput {
  zone?: string;
  ready?: NodeCondition['status'] | 'none';
  taints?: Taint[];
  unschedulable?: boolean;
  labels?: Record<string, string>;
  maxPods?: number;
  suspect?: boolean;
}

export function node(name: string, input: NodeInput = {}): Node {
  const at = '2026-11-29T11:00:00.000Z';
  const conditions: NodeCondition[] = [];
  if (input.ready !== 'none')
    conditions.push({ type: 'Ready', status: input.ready ?? 'True', lastHeartbeatTime: at, lastTransitionTime: at });
  if (input.suspect) conditions.push({ type: 'Suspect', status: 'True', lastTransitionTime: at });
  const status: Node['status'] & { allocatable?: { pods: string } } = { conditions };
  if (input.maxPods !== undefined) status.allocatable = { pods: String(input.maxPods) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: '',
      creationTimestamp: at,
      labels: { ...(input.zone === undefined ? {} : { [ZONE_LABEL]: input.zone }), ...input.labels },
    },
    spec: {
      ...(input.taints ? { taints: input.taints } : {}),
      ...(input.unschedulable ? { unschedulable: true } : {}),
    },
    status,
  };
}

export interface PodInput {
  namespace?: string;
  owner?: { name: string; uid: string };
  nodeName?: string;
  tolerations?: Toleration[];
  nodeSelector?: Record<string, string>;
  phase?: Pod['status']['phase'];
  ready?: boolean;
  readySince?: string;
  labels?: Record<string, string>;
  created?: string;
  deleting?: boolean;
}

export function pod(name: string, input: PodInput = {}): Pod {
  const created = input.created ?? '2026-11-29T11:00:00.000Z';
  const conditions: PodCondition[] = [];
  if (input.ready !== undefined)
    conditions.push({
      type: 'Ready',
      status: input.ready ? 'True' : 'False',
      lastTransitionTime: input.readySince ?? created,
    });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: input.namespace ?? 'default',
      uid: `uid-${name}`,
      resourceVersion: '',
      creationTimestamp: created,
      ...(input.labels ? { labels: input.labels } : {}),
      ...(input.owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: input.owner.name,
                uid: input.owner.uid,
                controller: true,
              },
            ],
          }
        : {}),
      ...(input.deleting ? { deletionTimestamp: '2026-11-29T12:00:30.000Z', deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: {
      containers: [{ name: 'app' }],
      ...(input.nodeName ? { nodeName: input.nodeName } : {}),
      ...(input.tolerations ? { tolerations: input.tolerations } : {}),
      ...(input.nodeSelector ? { nodeSelector: input.nodeSelector } : {}),
    },
    status: { phase: input.phase ?? 'Pending', ...(conditions.length > 0 ? { conditions } : {}) },
  };
}

export function deployment(name: string, spec: Partial<DeploymentSpec> = {}, namespace = 'default'): Deployment {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      resourceVersion: '',
      creationTimestamp: '2026-11-29T11:00:00.000Z',
      generation: 1,
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
      ...spec,
    },
    status: {},
  };
}

export const taint = (key: string, effect: Taint['effect'], timeAdded?: string, value?: string): Taint => ({
  key,
  effect,
  ...(value === undefined ? {} : { value }),
  ...(timeAdded === undefined ? {} : { timeAdded }),
});

export interface Harness {
  clock: FakeClock;
  client: FakeApiClient;
  informers: SharedInformers;
  lines: RecordedLine[];
  log: ReturnType<typeof recordingLogger>;
  stop: AbortController;
  /** Starts the informers (after the controllers subscribed) and waits until they have listed. */
  start(): Promise<void>;
  /** Lets informer events and in-flight calls settle, moving the clock by `ms`. */
  settle(ms?: number): Promise<void>;
  events(reason?: string): Array<{
    reason: string;
    type: string;
    message: string;
    count: number;
    source: { component: string };
    involvedObject: { kind: string; name: string; namespace?: string };
  }>;
  pods(): Pod[];
  podNamed(name: string, namespace?: string): Pod | undefined;
  close(): Promise<void>;
}

export function harness(seed: { nodes?: Node[]; pods?: Pod[]; deployments?: Deployment[] } = {}): Harness {
  const clock = new FakeClock();
  const client = new FakeApiClient({ now: () => clock.now() });
  for (const n of seed.nodes ?? []) client.put('nodes', n);
  for (const p of seed.pods ?? []) client.put('pods', p);
  for (const d of seed.deployments ?? []) client.put('deployments', d);
  const lines: RecordedLine[] = [];
  const log = recordingLogger(lines);
  const informers = new SharedInformers({ client, clock, log });
  const stop = new AbortController();
  let running: Promise<unknown> | undefined;
  const h: Harness = {
    clock,
    client,
    informers,
    lines,
    log,
    stop,
    async start() {
      running = informers.start(stop.signal);
      await flush();
      await informers.waitForSync(stop.signal);
      await flush();
    },
    async settle(ms = 0) {
      await flush();
      await clock.advance(ms);
      await flush();
    },
    events(reason) {
      return ([...client.data.events.values()] as unknown as ReturnType<Harness['events']>).filter(
        (e) => reason === undefined || e.reason === reason,
      );
    },
    pods() {
      return [...client.data.pods.values()] as unknown as Pod[];
    },
    podNamed(name, namespace = 'default') {
      return client.data.pods.get(`${namespace}/${name}`) as unknown as Pod | undefined;
    },
    async close() {
      stop.abort();
      await flush();
      await running;
    },
  };
  return h;
}

/** An ApiClient whose pod bindings wait until the test releases them (to see what the scheduler assumed). */
export function gatedBinds(client: FakeApiClient): { api: ApiClient; release(): void; waiting(): number } {
  let gates: Array<() => void> = [];
  const wrap = (pods: PodClient): PodClient =>
    new Proxy(pods, {
      get(target, prop) {
        if (prop === 'bind')
          return async (name: string, nodeName: string) => {
            await new Promise<void>((r) => gates.push(r));
            return target.bind(name, nodeName);
          };
        return Reflect.get(target, prop, target) as unknown;
      },
    });
  const api = new Proxy(client, {
    get(target, prop) {
      if (prop === 'pods') return (ns?: string) => wrap(target.pods(ns));
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as ApiClient;
  return {
    api,
    release() {
      const g = gates;
      gates = [];
      for (const r of g) r();
    },
    waiting: () => gates.length,
  };
}
