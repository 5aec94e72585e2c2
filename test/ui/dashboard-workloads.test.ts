import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deployment } from '../../src/core/deployment.js';
import type { Pod } from '../../src/core/pod.js';
import { seededRandom } from '../../src/core/random.js';
import type { Zone } from '../../src/core/zone.js';
import { ANNOTATION_TAINT_QUEUE } from '../../src/core/zone-annotations.js';
import {
  ALL_PODS,
  deploymentColumns,
  podRowOf,
  podsOfDeployment,
  podStatusText,
  selectPods,
  sortKeys,
} from '../../src/ui/model/pod-row.js';
import { hrefOf, parseRoute } from '../../src/ui/model/route.js';
import { taintQueueOf } from '../../src/ui/model/taint-queue.js';
import { fieldScope } from '../../src/ui/store/resources.js';
import { LINGER_MS, MAX_STREAMS, Stores } from '../../src/ui/store/stores.js';
import { ApiTransport } from '../../src/ui/store/transport.js';
import { FakeClock, flush } from '../support/fake-clock.js';

// The dashboard's workload and controller views, their pure parts: a pod's row as kubectl words it, filters, a
// Deployment's pods and columns, the zone's taint queue, the new routes; and the page's stores: scoped by a
// selector, held by views, stopped when no view holds them, giving way when the browser's connections run out.
type PodExtra = {
  phase?: Pod['status']['phase'];
  node?: string;
  ns?: string;
  owner?: string;
  reason?: string;
  deleting?: boolean;
  containers?: NonNullable<Pod['status']['containerStatuses']>;
};

function pod(name: string, x: PodExtra = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: x.ns ?? 'default',
      uid: `uid-${name}`,
      resourceVersion: '1',
      creationTimestamp: '2026-11-29T11:00:00Z',
      ...(x.owner
        ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: x.owner }] }
        : {}),
      ...(x.deleting ? { deletionTimestamp: '2026-11-29T12:00:30Z' } : {}),
    },
    spec: { containers: [{ name: 'app' }, { name: 'side' }], ...(x.node ? { nodeName: x.node } : {}) },
    status: {
      phase: x.phase ?? 'Running',
      ...(x.reason ? { reason: x.reason } : {}),
      ...(x.containers ? { containerStatuses: x.containers } : {}),
    },
  } as Pod;
}

const running = (name: string, restarts = 0) => ({
  name,
  ready: true,
  restartCount: restarts,
  state: { running: {} },
});

describe('dashboard workloads model', () => {
  it("words a pod's status as kubectl does", () => {
    assert.equal(podStatusText(pod('p', { phase: 'Pending' })), 'Pending');
    assert.equal(podStatusText(pod('p', { containers: [running('app'), running('side')] })), 'Running');
    const crash = { name: 'app', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } };
    assert.equal(podStatusText(pod('p', { containers: [crash, running('side')] })), 'CrashLoopBackOff');
    const done = {
      name: 'app',
      ready: false,
      restartCount: 0,
      state: { terminated: { exitCode: 0, reason: 'Completed' } },
    };
    assert.equal(podStatusText(pod('p', { phase: 'Succeeded', containers: [done] })), 'Completed');
    const killed = { name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, signal: 9 } } };
    assert.equal(podStatusText(pod('p', { phase: 'Failed', containers: [killed] })), 'Signal:9');
    assert.equal(podStatusText(pod('p', { deleting: true })), 'Terminating');
    assert.equal(podStatusText(pod('p', { phase: 'Failed', reason: 'Evicted' })), 'Evicted');

    const row = podRowOf(pod('p', { node: 'n1', containers: [running('app', 2), crash] }));
    assert.equal(row.ready, '1/2');
    assert.equal(row.restarts, 6);
    assert.equal(row.node, 'n1');
    assert.equal(row.tone, 'bad');
    assert.equal(podRowOf(pod('p', { phase: 'Pending' })).node, undefined);
  });

  it('filters pods by name, namespace, node and phase, sorted by namespace then name', () => {
    const pods = [
      pod('b', { node: 'n1' }),
      pod('a', { node: 'n2', ns: 'shop' }),
      pod('c', { phase: 'Pending' }),
      pod('a', { node: 'n1' }),
    ];
    const byKey = new Map(pods.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p]));
    const ordered = sortKeys(byKey.keys()).map((k) => byKey.get(k));
    const keys = (q: Partial<typeof ALL_PODS>): string[] =>
      selectPods(ordered, { ...ALL_PODS, ...q }).map((r) => r.key);
    assert.deepEqual(keys({}), ['default/a', 'default/b', 'default/c', 'shop/a']);
    assert.deepEqual(keys({ node: 'n1' }), ['default/a', 'default/b']);
    assert.deepEqual(keys({ namespace: 'shop' }), ['shop/a']);
    assert.deepEqual(keys({ phase: 'Pending' }), ['default/c']);
    assert.deepEqual(keys({ text: 'B' }), ['default/b']);
  });

  it("finds a Deployment's pods by its uid and words its columns", () => {
    const d = {
      metadata: { name: 'web', namespace: 'default', uid: 'd-1' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    } as unknown as Deployment;
    const pods = [pod('web-2', { owner: 'd-1' }), pod('web-1', { owner: 'd-1' }), pod('other', { owner: 'd-2' })];
    pods.push(pod('web-3', { owner: 'd-1', ns: 'shop' }));
    assert.deepEqual(
      podsOfDeployment(pods, d).map((r) => r.name),
      ['web-1', 'web-2'],
    );
    assert.deepEqual(deploymentColumns(d), { ready: '2/3', upToDate: 3, available: 2 });
    assert.deepEqual(deploymentColumns({ ...d, spec: { ...d.spec, replicas: undefined }, status: {} } as Deployment), {
      ready: '0/1',
      upToDate: 0,
      available: 0,
    });
  });

  it("reads a zone's taint queue from its annotation, and nothing from a missing or broken one", () => {
    const zone = (note: string | undefined): Zone =>
      ({
        metadata: { name: 'z', ...(note === undefined ? {} : { annotations: { [ANNOTATION_TAINT_QUEUE]: note } }) },
        status: { state: 'Normal', nodes: 3, notReady: 2, evictionRate: 0.1 },
      }) as unknown as Zone;
    assert.equal(taintQueueOf(zone(undefined)), undefined);
    assert.equal(taintQueueOf(zone('not json')), undefined);
    assert.equal(taintQueueOf(zone('{"length":0,"next":[]}')), undefined);
    assert.deepEqual(
      taintQueueOf(zone('{"length":12,"next":[{"node":"n1","at":"2026-11-29T12:00:10Z"},{"node":"n2"}]}')),
      {
        length: 12,
        next: [
          { node: 'n1', at: Date.parse('2026-11-29T12:00:10Z') },
          { node: 'n2', at: undefined },
        ],
      },
    );
  });

  it('routes the Pods view with its filters, the Deployments view and one Deployment', () => {
    assert.deepEqual(parseRoute('#/pods'), { view: 'pods' });
    assert.deepEqual(parseRoute('#/pods?node=n%201&phase=Running'), { view: 'pods', node: 'n 1', phase: 'Running' });
    assert.deepEqual(parseRoute('#/deployments'), { view: 'deployments' });
    assert.deepEqual(parseRoute('#/deployments/shop/web'), { view: 'deployment', namespace: 'shop', name: 'web' });
    assert.deepEqual(parseRoute('#/deployments/shop/%E0%A4'), { view: 'missing', hash: '#/deployments/shop/%E0%A4' });
    for (const r of [
      { view: 'pods', namespace: 'shop', node: 'n/1' },
      { view: 'deployment', namespace: 'a', name: 'b c' },
    ] as const)
      assert.deepEqual(parseRoute(hrefOf(r)), r);
  });
});

/** A server that never answers: every request hangs until the page aborts it. */
function hangingServer(): { urls: string[]; aborted: string[]; fetch: typeof fetch } {
  const urls: string[] = [];
  const aborted: string[] = [];
  const f = (url: string, init: RequestInit): Promise<Response> => {
    urls.push(url);
    return new Promise((_resolve, reject) => {
      init.signal?.addEventListener('abort', () => {
        aborted.push(url);
        reject(new DOMException('aborted', 'AbortError'));
      });
    });
  };
  return { urls, aborted, fetch: f as unknown as typeof fetch };
}

function storesOn(server: ReturnType<typeof hangingServer>, clock: FakeClock): Stores {
  return new Stores({
    transport: new ApiTransport({ fetch: server.fetch, token: () => undefined }),
    clock,
    random: seededRandom(1),
    onUnauthorized: () => assert.fail('no 401 here'),
  });
}

describe('dashboard stores', () => {
  it('scopes a store by a selector, and keeps one store per resource and scope', async () => {
    const server = hangingServer();
    const clock = new FakeClock();
    const stores = storesOn(server, clock);
    const scoped = stores.get('verdicts', fieldScope('node', 'n1', 'verdicts of n1'));
    assert.equal(stores.get('verdicts', fieldScope('node', 'n1', 'verdicts of n1')), scoped);
    assert.notEqual(stores.get('verdicts', fieldScope('node', 'n2', 'verdicts of n2')), scoped);
    await flush();
    assert.ok(server.urls.includes('/api/v1/verdicts?fieldSelector=node%3Dn1&limit=500'), server.urls.join(' '));
    assert.equal(scoped.resource.title, 'verdicts of n1');
    stores.stop();
  });

  it('stops a store no view holds after the linger, and keeps one a view holds again in time', async () => {
    const server = hangingServer();
    const clock = new FakeClock();
    const stores = storesOn(server, clock);
    let changes = 0;
    stores.onChange(() => changes++);
    const nodes = stores.get('nodes');
    const release = stores.hold(nodes);
    await flush();
    await clock.advance(LINGER_MS * 2);
    assert.deepEqual(stores.started(), [nodes], 'held: running');
    release();
    await clock.advance(LINGER_MS - 1);
    const again = stores.hold(stores.get('nodes'));
    await clock.advance(LINGER_MS * 2);
    assert.deepEqual(stores.started(), [nodes], 'held again within the linger: the same store, still running');
    again();
    await clock.advance(LINGER_MS);
    await flush();
    assert.deepEqual(stores.started(), []);
    assert.deepEqual(server.aborted, ['/api/v1/nodes?limit=500'], 'its request ended');
    assert.equal(changes, 2, 'started, stopped');
    assert.notEqual(stores.get('nodes'), nodes, 'asked for again: a new store');
    stores.stop();
  });

  it("stops lingering stores at once when a new one would pass the browser's connections", async () => {
    const server = hangingServer();
    const clock = new FakeClock();
    const stores = storesOn(server, clock);
    const names = ['zones', 'nodes', 'nodeLeases', 'events', 'pods'] as const;
    const releases = names.map((n) => stores.hold(stores.get(n)));
    const deployments = stores.get('deployments');
    assert.equal(stores.started().length, MAX_STREAMS);
    (releases[1] as () => void)(); // nodes: lingering now, and deployments since it started (never held)
    const nodes = stores.started()[1];
    stores.hold(stores.get('verdicts', fieldScope('node', 'n1', 'verdicts of n1')));
    await flush();
    assert.equal(stores.started().length, MAX_STREAMS);
    assert.ok(!stores.started().includes(nodes as never), 'the oldest lingering store gave way');
    assert.ok(stores.started().includes(deployments));
    stores.hold(stores.get('systemLeases'));
    assert.equal(stores.started().length, MAX_STREAMS);
    assert.ok(!stores.started().includes(deployments), 'then the next one');
    stores.hold(stores.get('deployments'));
    assert.equal(stores.started().length, MAX_STREAMS + 1, 'held stores are never stopped: the browser queues');
    stores.stop();
  });
});
