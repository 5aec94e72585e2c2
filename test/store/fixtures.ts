import type { Event } from '../../src/core/event.js';
import type { AnyObject, Resource } from '../../src/core/kinds.js';
import type { Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
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

/** A fresh object of any kind named `name` (leases in node-lease). */
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
