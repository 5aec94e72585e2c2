import type { Deployment } from '../../src/core/deployment.js';
import type { Event } from '../../src/core/event.js';
import type { ContainerStatus, Pod } from '../../src/core/pod.js';
import { before, NOW } from './fixtures.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

export { NOW };

const OWNER = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true };
const TOLERATIONS = [
  {
    key: 'node.kubernetes.io/not-ready',
    operator: 'Exists' as const,
    effect: 'NoExecute' as const,
    tolerationSeconds: 300,
  },
  {
    key: 'node.kubernetes.io/unreachable',
    operator: 'Exists' as const,
    effect: 'NoExecute' as const,
    tolerationSeconds: 300,
  },
];

export function running(name: string, startedAgo: number): ContainerStatus {
  return { name, ready: true, restartCount: 0, state: { running: { startedAt: before(startedAgo) } } };
}

/** A pod of Deployment web (unless `owned: false`), bound to `node` unless it is undefined. */
export function wpod(
  name: string,
  o: {
    created: number;
    node?: string;
    namespace?: string;
    phase?: Pod['status']['phase'];
    reason?: string;
    containers?: ContainerStatus[];
    containerNames?: string[];
    deleting?: number;
    owned?: boolean;
    ready?: boolean;
  },
): Pod {
  const names = o.containerNames ?? ['app'];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: `uid-${name}`,
      resourceVersion: '50',
      creationTimestamp: before(o.created),
      labels: { app: 'web', 'pod-template-hash': '5d4f8' },
      ...(o.owned === false ? {} : { ownerReferences: [OWNER] }),
      ...(o.deleting === undefined ? {} : { deletionTimestamp: before(o.deleting), deletionGracePeriodSeconds: 30 }),
    },
    spec: {
      ...(o.node ? { nodeName: o.node } : {}),
      containers: names.map((n) => ({ name: n, image: 'nginx:1.27' })),
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      tolerations: TOLERATIONS,
    },
    status: {
      phase: o.phase ?? 'Running',
      ...(o.reason ? { reason: o.reason } : {}),
      ...(o.node ? { hostIP: `10.0.0.${o.node.slice(-1)}`, startTime: before(o.created - S) } : {}),
      ...(o.containers ? { containerStatuses: o.containers } : {}),
      ...(o.ready === undefined
        ? {}
        : { conditions: [{ type: 'Ready', status: o.ready ? ('True' as const) : ('False' as const) }] }),
    },
  };
}

export const PODS: Pod[] = [
  wpod('web-5d4f8-a1', { created: 2 * H, node: 'node-1', containers: [running('app', 2 * H)], ready: true }),
  wpod('web-5d4f8-b2', {
    created: 2 * H,
    node: 'node-2',
    containers: [
      {
        name: 'app',
        ready: false,
        restartCount: 4,
        state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: before(90 * S) } },
      },
    ],
    ready: false,
  }),
  wpod('web-5d4f8-c3', { created: 30 * S, phase: 'Pending' }),
  wpod('web-5d4f8-d4', {
    created: 3 * H,
    node: 'node-2',
    deleting: 20 * S,
    containers: [running('app', 3 * H)],
    ready: true,
  }),
  wpod('job-1', {
    created: 5 * M,
    node: 'node-1',
    owned: false,
    phase: 'Succeeded',
    containers: [
      {
        name: 'app',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: before(4 * M) } },
      },
    ],
  }),
  wpod('batch-2', {
    created: 6 * M,
    node: 'node-3',
    namespace: 'team-a',
    owned: false,
    phase: 'Failed',
    containers: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, signal: 9 } } }],
  }),
];

export function wdeployment(name: string, namespace = 'default'): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      resourceVersion: '60',
      creationTimestamp: before(2 * H),
      generation: 2,
      labels: { team: 'frontend' },
    },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: 'app', image: 'nginx:1.27', env: [{ name: 'MODE', value: 'prod' }] }],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    },
    status: {
      observedGeneration: 2,
      replicas: 4,
      updatedReplicas: 4,
      readyReplicas: 2,
      availableReplicas: 2,
      unavailableReplicas: 2,
      conditions: [
        {
          type: 'Available',
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
      ],
    },
  };
}

export function podEvent(
  name: string,
  o: { reason: string; message: string; ago: number; kind?: string; object?: string; namespace?: string },
): Event {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, uid: `uid-${name}`, resourceVersion: '70', creationTimestamp: before(o.ago) },
    type: o.reason.startsWith('Failed') ? 'Warning' : 'Normal',
    reason: o.reason,
    message: o.message,
    involvedObject: {
      kind: o.kind ?? 'Pod',
      name: o.object ?? 'web-5d4f8-a1',
      ...(o.namespace === undefined ? {} : { namespace: o.namespace }),
    },
    source: {
      component:
        o.kind === 'Deployment'
          ? 'deployment-controller'
          : o.reason.startsWith('TaintManager')
            ? 'taint-eviction-controller'
            : 'scheduler',
    },
    count: 1,
    firstTimestamp: before(o.ago),
    lastTimestamp: before(o.ago),
  };
}

export const WORKLOAD_EVENTS: Event[] = [
  podEvent('e1', {
    reason: 'Scheduled',
    message: 'Successfully assigned default/web-5d4f8-a1 to node-1',
    ago: 2 * H,
    namespace: 'default',
  }),
  // The same pod name in another namespace: not this pod's.
  podEvent('e2', {
    reason: 'Scheduled',
    message: 'Successfully assigned team-a/web-5d4f8-a1 to node-3',
    ago: H,
    namespace: 'team-a',
  }),
  // Written before Events had a namespace: kept.
  podEvent('e3', {
    reason: 'TaintManagerEvictionCancelled',
    message: 'Cancelling deletion of Pod default/web-5d4f8-a1',
    ago: 10 * M,
  }),
  podEvent('e4', {
    reason: 'SuccessfulCreate',
    message: 'Created pod: web-5d4f8-a1',
    ago: 2 * H,
    kind: 'Deployment',
    object: 'web',
    namespace: 'default',
  }),
];
