import { Registry } from 'prom-client';
import type { Writable } from '../../src/client/api-client.js';
import type { Verdict } from '../../src/core/verdict.js';
import type { Lease } from '../../src/core/lease.js';
import { recordingLogger, type RecordedLine } from '../../src/core/logger.js';
import { ZONE_LABEL, type Node, type NodeCondition, type Taint } from '../../src/core/node.js';
import { defaultNodeLifecycleConfig, type NodeLifecycleConfig } from '../../src/controller/node-lifecycle/config.js';
import { NodeLifecycleController } from '../../src/controller/node-lifecycle/node-lifecycle-controller.js';
import type { PassSlicer } from '../../src/controller/node-lifecycle/pass-slicer.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { FakeCache } from '../support/fake-cache.js';
import { FakeClock } from '../support/fake-clock.js';

/**
 * A FakeApiClient whose writes reach the FakeCaches at once, as an informer with no lag would: each change as a
 * new object, every other object keeping its identity, so the monitor pass takes its identity fast path
 * (src/controller/node-lifecycle/node-record.ts) as it does in production. Tests freeze one cache
 * (`syncLeases = false`) to play a stale watch.
 */
export class InformedFakeApiClient extends FakeApiClient {
  syncNodes = true;
  syncLeases = true;

  constructor(
    now: () => number,
    readonly nodeCache: FakeCache<Node>,
    readonly leaseCache: FakeCache<Lease>,
  ) {
    super({ now });
    this.onChange((resource, type, obj) => {
      if (type === 'DELETED') return; // the controller never deletes; tests remove from a cache by hand
      if (resource === 'nodes' && this.syncNodes) this.nodeCache.set(obj as unknown as Node);
      if (resource === 'leases' && this.syncLeases) this.leaseCache.set(obj as unknown as Lease);
    });
  }
}

export interface NodeSpecInput {
  zone?: string;
  ready?: NodeCondition['status'];
  labels?: Record<string, string>;
  taints?: Taint[];
  conditions?: NodeCondition[];
  unschedulable?: boolean;
}

export function makeNode(name: string, at: number, input: NodeSpecInput = {}): Node {
  const time = new Date(at).toISOString();
  const labels = { ...(input.zone === undefined ? {} : { [ZONE_LABEL]: input.zone }), ...input.labels };
  const conditions =
    input.conditions ??
    (input.ready === undefined
      ? []
      : [
          {
            type: 'Ready',
            status: input.ready,
            reason: 'AgentReady',
            message: 'ok',
            lastHeartbeatTime: time,
            lastTransitionTime: time,
          },
        ]);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-${name}`, resourceVersion: '', creationTimestamp: time, labels },
    spec: {
      ...(input.taints ? { taints: input.taints } : {}),
      ...(input.unschedulable ? { unschedulable: true } : {}),
    },
    status: { conditions },
  };
}

export function makeLease(name: string, renewAt: number, durationSeconds = 40): Lease {
  return {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: 'node-lease',
      uid: `lease-${name}`,
      resourceVersion: '',
      creationTimestamp: new Date(renewAt).toISOString(),
    },
    spec: { holderIdentity: name, leaseDurationSeconds: durationSeconds, renewTime: new Date(renewAt).toISOString() },
  };
}

/** The verdicts a controller wrote, in write order (a VerdictSink until the API serves them). */
export class RecordingVerdictSink {
  readonly written: Verdict[] = [];

  async create(v: Writable<Verdict>): Promise<Verdict> {
    const stored = structuredClone({
      ...v,
      metadata: {
        uid: `uid-${v.metadata.name}`,
        resourceVersion: '1',
        creationTimestamp: v.evidence.observedAt,
        ...v.metadata,
      },
    }) as Verdict;
    this.written.push(stored);
    return stored;
  }

  /** The verdicts of one node (or all), optionally of one action. */
  of(node?: string, action?: string): Verdict[] {
    return this.written.filter(
      (v) => (node === undefined || v.node === node) && (action === undefined || v.action === action),
    );
  }
}

export interface Harness {
  clock: FakeClock;
  verdicts: RecordingVerdictSink;
  client: InformedFakeApiClient;
  nodes: FakeCache<Node>;
  leases: FakeCache<Lease>;
  log: ReturnType<typeof recordingLogger>;
  lines: RecordedLine[];
  registry: Registry;
  controller: NodeLifecycleController;
  config: NodeLifecycleConfig;
  addNode(name: string, input?: NodeSpecInput, withLease?: boolean): Node;
  /** The agent renews its lease now (renewTime = wall now). */
  renew(name: string): Lease;
  /** The agent posts a Ready condition with a fresh heartbeat. */
  postReady(name: string, status: NodeCondition['status']): Node;
  node(name: string): Node;
  events(reason?: string): Array<{ reason: string; type: string; message: string; involvedObject: { name: string } }>;
  statusWrites(name?: string): number;
  noExecute(name: string): Taint | undefined;
  /** Recreates the controller over the same API and caches (a controller restart). */
  restart(): NodeLifecycleController;
}

/** `slicer`: how the controller's pass is cut into slices (default: on the fake clock, which never ends a slice). */
export function harness(overrides: Partial<NodeLifecycleConfig> = {}, extra: { slicer?: PassSlicer } = {}): Harness {
  const clock = new FakeClock();
  const nodes = new FakeCache<Node>();
  const leases = new FakeCache<Lease>();
  const client = new InformedFakeApiClient(() => clock.now(), nodes, leases);
  const lines: RecordedLine[] = [];
  const log = recordingLogger(lines);
  const config = { ...defaultNodeLifecycleConfig, ...overrides };
  const verdicts = new RecordingVerdictSink();
  const build = (): { controller: NodeLifecycleController; registry: Registry } => {
    const registry = new Registry();
    return {
      registry,
      controller: new NodeLifecycleController({
        client,
        nodes,
        leases,
        clock,
        log,
        config,
        metrics: registry,
        identity: 'test-host',
        verdicts,
        ...extra,
      }),
    };
  };
  const h: Harness = {
    clock,
    verdicts,
    client,
    nodes,
    leases,
    log,
    lines,
    config,
    ...build(),
    addNode(name, input = { ready: 'True' }, withLease = true) {
      const n = client.put('nodes', makeNode(name, clock.now(), input));
      if (withLease) client.put('leases', makeLease(name, clock.now()));
      return n;
    },
    renew(name) {
      const cur = client.data.leases.get(`node-lease/${name}`) as unknown as Lease;
      return client.put('leases', { ...cur, spec: { ...cur.spec, renewTime: new Date(clock.now()).toISOString() } });
    },
    postReady(name, status) {
      const cur = h.node(name);
      const at = new Date(clock.now()).toISOString();
      const rest = (cur.status.conditions ?? []).filter((c) => c.type !== 'Ready');
      const ready: NodeCondition = {
        type: 'Ready',
        status,
        reason: 'AgentReady',
        message: 'posted',
        lastHeartbeatTime: at,
        lastTransitionTime: at,
      };
      return client.put('nodes', { ...cur, status: { ...cur.status, conditions: [ready, ...rest] } });
    },
    node(name) {
      return structuredClone(client.data.nodes.get(name)) as unknown as Node;
    },
    events(reason) {
      const all = [...client.data.events.values()] as unknown as Array<{
        reason: string;
        type: string;
        message: string;
        involvedObject: { name: string };
        metadata: { resourceVersion: string };
      }>;
      return all.filter((e) => reason === undefined || e.reason === reason);
    },
    statusWrites(name) {
      return client.callsOf('nodes', 'updateStatus').filter((c) => name === undefined || c.name === name).length;
    },
    noExecute(name) {
      return h.node(name).spec.taints?.find((t) => t.effect === 'NoExecute');
    },
    restart() {
      const b = build();
      h.controller = b.controller;
      h.registry = b.registry;
      return b.controller;
    },
  };
  return h;
}
