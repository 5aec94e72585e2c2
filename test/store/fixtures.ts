import type { Deployment } from '../../src/core/deployment.js';
import type { Event } from '../../src/core/event.js';
import type { AnyObject, Resource } from '../../src/core/kinds.js';
import type { Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
import type { Pod } from '../../src/core/pod.js';
import type { Verdict } from '../../src/core/verdict.js';
import type { Zone } from '../../src/core/zone.js';
import type { StoreEvent } from '../../src/store/store.js';

const T0 = '2026-11-29T12:00:00.000Z';

function meta(name: string, extra: { namespace?: string; labels?: Record<string, string> } = {}) {
  return { name, uid: `uid-${name}`, resourceVersion: '', creationTimestamp: T0, ...extra };
}

export function node(name: string, labels?: Record<string, string>): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: labels ? meta(name, { labels }) : meta(name),
    spec: { unschedulable: false },
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok', lastHeartbeatTime: T0 }],
    },
  };
}

export function lease(name: string, namespace = 'node-lease', renewTime = T0): Lease {
  return {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: { ...meta(name), namespace },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
  };
}

export function zone(name: string): Zone {
  return {
    apiVersion: 'v1',
    kind: 'Zone',
    metadata: meta(name),
    status: { state: 'Normal', nodes: 1, notReady: 0, evictionRate: 0.1 },
  };
}

export function event(name: string): Event {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta(name),
    type: 'Normal',
    reason: 'RegisteredNode',
    message: `Node ${name} event`,
    involvedObject: { kind: 'Node', name },
    source: { component: 'node-controller' },
    count: 1,
    firstTimestamp: T0,
    lastTimestamp: T0,
  };
}

export function pod(name: string, namespace = 'default', nodeName?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...meta(name, { labels: { app: 'web' } }),
      namespace,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true }],
    },
    spec: {
      ...(nodeName === undefined ? {} : { nodeName }),
      containers: [{ name: 'main', command: ['sleep', '3600'], env: [{ name: 'MODE', value: 'prod' }] }],
      tolerations: [
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
    },
    status: { phase: 'Pending' },
  };
}

export function deployment(name: string, namespace = 'default'): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { ...meta(name), namespace, generation: 1 },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main' }] } },
    },
    status: {},
  };
}

export function verdict(name: string, node = 'node-1'): Verdict {
  return {
    apiVersion: 'shepherd.io/v1',
    kind: 'Verdict',
    metadata: meta(name, { labels: { 'shepherd.io/node': node } }),
    node,
    action: 'MarkUnknown',
    reason: 'LeaseExpired',
    message: `node ${node} stopped renewing its lease`,
    dryRun: false,
    evidence: { observedAt: T0, silentForSeconds: 41, graceSeconds: 40 },
  };
}

/** A fresh object of any kind named `name` (leases in node-lease, pods and deployments in default). */
export function objectOf(resource: Resource, name: string): AnyObject {
  switch (resource) {
    case 'nodes':
      return node(name);
    case 'leases':
      return lease(name);
    case 'zones':
      return zone(name);
    case 'events':
      return event(name);
    case 'pods':
      return pod(name);
    case 'deployments':
      return deployment(name);
    case 'verdicts':
      return verdict(name);
  }
}

/** A copy with a visible change, so an update is not a no-op. */
export function touched<T extends AnyObject>(obj: T, n: number): T {
  return { ...obj, metadata: { ...obj.metadata, annotations: { 'test/n': String(n) } } };
}

export function rv(obj: AnyObject): number {
  return Number(obj.metadata.resourceVersion);
}

/** next() that fails instead of hanging when a broken watch never answers (a guard, not a sleep). */
export async function nextWithin<T>(it: AsyncIterator<T>, timeoutMs = 20_000): Promise<IteratorResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`watch produced nothing within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([it.next(), guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads events until one has revision >= `until` (or the stream ends). */
export async function collectUntil<T>(it: AsyncIterator<StoreEvent<T>>, until: number): Promise<StoreEvent<T>[]> {
  const out: StoreEvent<T>[] = [];
  for (;;) {
    const r = await nextWithin(it);
    if (r.done) return out;
    out.push(r.value);
    if (r.value.revision >= until) return out;
  }
}
