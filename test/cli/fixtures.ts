import type { Event } from '../../src/core/event.js';
import type { Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
import type { Zone } from '../../src/core/zone.js';
import { FakeApiClient, type FakeApiClientOptions } from '../support/fake-api-client.js';

/** Every golden file is rendered at this instant. */
export const NOW = Date.parse('2026-11-29T12:00:00.000Z');

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

/** NOW minus ms, as the API writes times. */
export const before = (ms: number): string => new Date(NOW - ms).toISOString();

function meta(name: string, created: number, rv: string, labels?: Record<string, string>) {
  return {
    name,
    uid: `uid-${name}`,
    resourceVersion: rv,
    creationTimestamp: before(created),
    ...(labels ? { labels } : {}),
  };
}

export function node(
  name: string,
  o: {
    created: number;
    rv?: string;
    labels?: Record<string, string>;
    ready?: 'True' | 'False' | 'Unknown';
    heartbeat?: number;
    transition?: number;
    taints?: Node['spec']['taints'];
    unschedulable?: boolean;
    info?: boolean;
  },
): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: meta(name, o.created, o.rv ?? '10', o.labels),
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: {
      ...(o.ready
        ? {
            conditions: [
              {
                type: 'Ready',
                status: o.ready,
                reason: o.ready === 'True' ? 'AgentReady' : o.ready === 'False' ? 'AgentNotReady' : 'NodeStatusUnknown',
                message: o.ready === 'Unknown' ? 'Agent stopped posting node status.' : 'agent is posting ready status',
                lastHeartbeatTime: before(o.heartbeat ?? 0),
                lastTransitionTime: before(o.transition ?? o.created),
              },
            ],
          }
        : {}),
      ...(o.info
        ? {
            nodeInfo: { agentVersion: '0.1.0', hostname: name, os: 'linux', arch: 'amd64' },
            addresses: [
              { type: 'InternalIP', address: `10.0.0.${name.slice(-1)}` },
              { type: 'Hostname', address: name },
            ],
            podCount: name === 'node-1' ? 3 : 0,
            capacity: { cpu: '4', memory: '16Gi', pods: '110' },
            allocatable: { cpu: '3500m', memory: '15872Mi', pods: '110' },
          }
        : {}),
    },
  };
}

export function lease(
  name: string,
  renewedAgo: number,
  o: { namespace?: string; holder?: string; duration?: number } = {},
): Lease {
  return {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: { ...meta(name, 2 * D, '20'), namespace: o.namespace ?? 'node-lease' },
    spec: {
      holderIdentity: o.holder ?? name,
      leaseDurationSeconds: o.duration ?? 40,
      acquireTime: before(2 * D),
      renewTime: before(renewedAgo),
    },
  };
}

export function event(name: string, o: Partial<Event> & { lastAgo: number; firstAgo?: number }): Event {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta(name, o.firstAgo ?? o.lastAgo, '30'),
    type: o.type ?? 'Normal',
    reason: o.reason ?? 'RegisteredNode',
    message: o.message ?? 'Node node-1 event: Registered Node node-1 in Controller',
    involvedObject: o.involvedObject ?? { kind: 'Node', name: 'node-1' },
    source: { component: 'node-controller' },
    count: o.count ?? 1,
    firstTimestamp: before(o.firstAgo ?? o.lastAgo),
    lastTimestamp: before(o.lastAgo),
  };
}

export function zone(name: string, status: Zone['status'], annotations?: Record<string, string>): Zone {
  return {
    apiVersion: 'v1',
    kind: 'Zone',
    metadata: { ...meta(name, 3 * D, '40'), ...(annotations ? { annotations } : {}) },
    status,
  };
}

const ZONE = 'topology.kubernetes.io/zone';

export const NODES: Node[] = [
  node('node-1', {
    created: 2 * D + 4 * H,
    labels: { [ZONE]: 'zone-a', tier: 'web' },
    ready: 'True',
    heartbeat: 40 * S,
    info: true,
  }),
  node('node-2', {
    created: 5 * H,
    labels: { [ZONE]: 'zone-a' },
    ready: 'Unknown',
    heartbeat: 5 * M,
    transition: 4 * M,
    info: true,
    taints: [
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: before(4 * M) },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: before(3 * M + 20 * S) },
    ],
  }),
  node('node-3', {
    created: 12 * D,
    labels: { [ZONE]: 'zone-b' },
    ready: 'False',
    heartbeat: 45 * S,
    unschedulable: true,
    taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
  }),
  node('node-4', { created: 45 * S }),
];

export const LEASES: Lease[] = [
  lease('node-1', 3 * S),
  lease('node-2', 5 * M + 10 * S),
  lease('shepherd-node-lifecycle-controller', 2 * S, {
    namespace: 'shepherd-system',
    holder: 'ctrl-host_4242',
    duration: 15,
  }),
];

export const EVENTS: Event[] = [
  event('node-1.a1', { lastAgo: 2 * D, reason: 'RegisteredNode' }),
  event('node-2.b2', {
    lastAgo: 4 * M,
    type: 'Warning',
    reason: 'NodeNotReady',
    message: 'Node node-2 heartbeat timeout: no lease renewal or status heartbeat observed for 52s (grace 50s)',
    involvedObject: { kind: 'Node', name: 'node-2' },
  }),
  event('node-2.c3', {
    lastAgo: 3 * M + 20 * S,
    type: 'Warning',
    reason: 'NodeTainted',
    message: 'Tainted node-2 with node.kubernetes.io/unreachable:NoExecute (zone zone-a rate 0.1/s)',
    involvedObject: { kind: 'Node', name: 'node-2' },
  }),
  event('zone-a.d4', {
    lastAgo: 7 * M + 20 * S,
    firstAgo: 30 * M,
    count: 5,
    reason: 'ZoneStateChanged',
    message: 'Zone zone-a: Initial -> Normal (rate 0.1/s)',
    involvedObject: { kind: 'Zone', name: 'zone-a' },
  }),
];

export const ZONES: Zone[] = [
  zone('default', { state: 'Normal', nodes: 1, notReady: 1, evictionRate: 0.1 }),
  zone(
    'zone-a',
    { state: 'Normal', nodes: 2, notReady: 1, evictionRate: 0.1 },
    { 'shepherd.io/controller-leader': 'ctrl-host_4242' },
  ),
  zone('zone-b', { state: 'FullDisruption', nodes: 1, notReady: 1, evictionRate: 0.1 }),
];

/** The API revision every fixture client starts at (above every fixture's resourceVersion): lists report it. */
export const FIXTURE_REVISION = 100;

/** A FakeApiClient serving the given fixtures (default: all of them) at FIXTURE_REVISION. */
export function fixtureClient(
  data: FakeApiClientOptions = { nodes: NODES, leases: LEASES, events: EVENTS, zones: ZONES },
): FakeApiClient {
  return new FakeApiClient({ revision: FIXTURE_REVISION, ...data });
}
