import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { DeploymentController } from '../../../src/controller/deployment/deployment-controller.js';
import { DeploymentMetrics } from '../../../src/controller/deployment/metrics.js';
import { POD_TEMPLATE_HASH_LABEL, type Deployment } from '../../../src/core/deployment.js';
import { ServiceUnavailableError } from '../../../src/core/errors.js';
import type { Node } from '../../../src/core/node.js';
import type { Pod } from '../../../src/core/pod.js';
import { seededRandom } from '../../../src/core/random.js';
import { objectKey } from '../../../src/core/object-key.js';
import { deployment, harness, node, type Harness } from '../workloads/fixtures.js';

type Handler<T> = (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T, old: T | undefined) => void;

/** An informer the test feeds by hand. */
class StubInformer<T extends { metadata: { name: string; namespace?: string } }> {
  readonly items = new Map<string, T>();
  readonly #handlers: Handler<T>[] = [];
  onEvent(h: Handler<T>): () => void {
    this.#handlers.push(h);
    return () => undefined;
  }
  waitForSync(): Promise<void> {
    return Promise.resolve();
  }
  get(key: string): T | undefined {
    return this.items.get(key);
  }
  add(obj: T): void {
    this.items.set(objectKey(obj.metadata), obj);
    for (const h of this.#handlers) h('ADDED', obj, undefined);
  }
}

interface Setup {
  h: Harness;
  controller: DeploymentController;
  running: Promise<void>;
  owned(name?: string): Pod[];
  live(name?: string): Pod[];
  status(name?: string): Deployment['status'];
  /** The agent's part: bind, run and make every pending pod of the Deployment ready. */
  runAll(name?: string, nodeName?: string): Promise<void>;
  ready(pod: Pod, nodeName?: string): void;
}

async function setup(seed: { nodes?: Node[]; deployments?: Deployment[]; pods?: Pod[] }): Promise<Setup> {
  const h = harness({ nodes: [node('n1'), node('n2')], ...seed });
  const controller = new DeploymentController({
    client: h.client,
    deployments: h.informers.deployments(),
    pods: h.informers.pods(),
    nodes: h.informers.nodes(),
    clock: h.clock,
    log: h.log,
    random: seededRandom(1),
    metrics: new DeploymentMetrics(new Registry()),
  });
  await h.start();
  const running = controller.run(h.stop.signal);
  await h.settle();
  const owned = (name = 'web'): Pod[] => {
    const uid = (h.client.data.deployments.get(`default/${name}`)?.metadata.uid ?? '') as string;
    return h.pods().filter((p) => p.metadata.ownerReferences?.some((o) => o.uid === uid));
  };
  const s: Setup = {
    h,
    controller,
    running,
    owned,
    live: (name) => owned(name).filter((p) => p.metadata.deletionTimestamp === undefined),
    status: (name = 'web') => (h.client.data.deployments.get(`default/${name}`) as unknown as Deployment).status,
    ready(p, nodeName = 'n1') {
      const at = new Date(h.clock.now()).toISOString();
      h.client.put('pods', {
        ...p,
        spec: { ...p.spec, nodeName: p.spec.nodeName ?? nodeName },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] },
      });
    },
    async runAll(name, nodeName) {
      for (const p of s.live(name)) if (p.status.phase === 'Pending') s.ready(p, nodeName);
      await h.settle();
    },
  };
  return s;
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.h.close();
  await current?.running;
  current = undefined;
});

const hashes = (pods: Pod[]): string[] => [
  ...new Set(pods.map((p) => p.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] ?? '')),
];

describe('deployment controller', () => {
  it('creates replicas with owner references, hash labels and generated names, and writes the status', async () => {
    const s = (current = await setup({ deployments: [deployment('web', { replicas: 3 })] }));
    await s.h.settle();
    const pods = s.owned();
    assert.equal(pods.length, 3);
    const [hash] = hashes(pods);
    for (const p of pods) {
      assert.match(p.metadata.name, new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      assert.equal(p.metadata.labels?.app, 'web');
      assert.deepEqual(p.metadata.ownerReferences?.[0]?.controller, true);
    }
    assert.deepEqual(s.status(), {
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 0,
      availableReplicas: 0,
      unavailableReplicas: 3,
    });
    assert.equal(s.h.events('SuccessfulCreate').length, 3);
    assert.equal(s.h.events('ScalingReplicaSet')[0]?.message, `Scaled up replica set web-${hash} to 3`);
    assert.equal(s.h.events('SuccessfulCreate')[0]?.source.component, 'deployment-controller');
    assert.equal(s.h.events('SuccessfulCreate')[0]?.involvedObject.namespace, 'default');
    await s.runAll();
    assert.equal(s.status().availableReplicas, 3);
    assert.equal(s.status().unavailableReplicas, 0);
  });

  it('never creates twice while the informer has not shown its creations (expectations)', async () => {
    // Caches that show nothing until the test says so: a watch that lags behind the writes.
    const h = harness();
    const d = h.client.put('deployments', deployment('web', { replicas: 2 }));
    const deployments = new StubInformer<Deployment>();
    deployments.items.set('default/web', d);
    const pods = new StubInformer<Pod>();
    const nodes = new StubInformer<Node>();
    const controller = new DeploymentController({
      client: h.client,
      deployments,
      pods,
      nodes,
      clock: h.clock,
      log: h.log,
      random: seededRandom(1),
    });
    // The Deployment as the server holds it now (its status writes move its resourceVersion).
    const sync = async (): Promise<void> => {
      deployments.items.set('default/web', h.client.data.deployments.get('default/web') as unknown as Deployment);
      await controller.sync('default/web');
    };
    await sync();
    await sync();
    assert.equal(h.client.callsOf('pods', 'create').length, 2);
    // The informer shows one of the two: still waiting for the other.
    const [first, second] = h.pods();
    pods.add(first as Pod);
    await sync();
    assert.equal(h.client.callsOf('pods', 'create').length, 2);
    pods.add(second as Pod);
    await sync();
    assert.equal(h.client.callsOf('pods', 'create').length, 2);
    // A creation that never shows up stops blocking after Kubernetes' 5-minute expectations timeout.
    pods.items.delete(objectKey((second as Pod).metadata));
    await sync();
    assert.equal(h.client.callsOf('pods', 'create').length, 3);
    await h.clock.advance(5 * 60_000 + 1);
    await sync();
    assert.equal(h.client.callsOf('pods', 'create').length, 4);
  });

  it('scales down, deleting unscheduled, then pending, then not-ready pods, then pods on doubtful nodes', async () => {
    const s = (current = await setup({
      nodes: [node('n1'), node('n2', { suspect: true }), node('n3')],
      deployments: [deployment('web', { replicas: 5 })],
    }));
    await s.h.settle();
    const [a, b, c, d, e] = s.owned() as [Pod, Pod, Pod, Pod, Pod];
    s.ready(a, 'n1');
    s.ready(b, 'n2');
    s.ready(c, 'n3');
    s.h.client.put('pods', { ...d, spec: { ...d.spec, nodeName: 'n1' }, status: { phase: 'Running' } });
    await s.h.settle();
    const d0 = s.h.client.data.deployments.get('default/web') as unknown as Deployment;
    s.h.client.put('deployments', { ...d0, spec: { ...d0.spec, replicas: 3 } });
    await s.h.settle();
    assert.deepEqual(
      s
        .live()
        .map((p) => p.metadata.name)
        .sort(),
      [a, b, c].map((p) => p.metadata.name).sort(),
    );
    const d1 = s.h.client.data.deployments.get('default/web') as unknown as Deployment;
    s.h.client.put('deployments', { ...d1, spec: { ...d1.spec, replicas: 2 } });
    await s.h.settle();
    assert.deepEqual(
      s
        .live()
        .map((p) => p.metadata.name)
        .sort(),
      [a, c].map((p) => p.metadata.name).sort(),
    );
    assert.equal(s.h.events('SuccessfulDelete').length, 3);
    assert.ok(s.h.events('SuccessfulDelete').some((ev) => ev.message === `Deleted pod: ${e.metadata.name}`));
  });

  it('replaces a pod that is evicted (terminating) or gone, and does not count terminating pods', async () => {
    const s = (current = await setup({ deployments: [deployment('web', { replicas: 2 })] }));
    await s.h.settle();
    await s.runAll();
    const [first, second] = s.owned() as [Pod, Pod];
    await s.h.client.pods('default').delete(first.metadata.name);
    await s.h.settle();
    assert.ok(s.h.podNamed(first.metadata.name)?.metadata.deletionTimestamp, 'the bound pod terminates gracefully');
    assert.equal(s.live().length, 2);
    assert.equal(s.status().replicas, 2);
    assert.equal(s.status().readyReplicas, 1);
    s.h.client.remove('pods', second.metadata.name, 'default');
    await s.h.settle();
    assert.equal(s.live().length, 2);
  });

  it('rolls a template change out with RollingUpdate, never below 3 of 4 available', async () => {
    const s = (current = await setup({ deployments: [deployment('web', { replicas: 4 })] }));
    await s.h.settle();
    await s.runAll();
    const [oldHash] = hashes(s.owned());
    const d = s.h.client.data.deployments.get('default/web') as unknown as Deployment;
    const template = { ...d.spec.template, spec: { containers: [{ name: 'app', image: 'nginx:2' }] } };
    s.h.client.put('deployments', { ...d, metadata: { ...d.metadata, generation: 2 }, spec: { ...d.spec, template } });
    for (let round = 0; round < 10; round++) {
      await s.h.settle();
      const live = s.live();
      const available = live.filter((p) => p.status.phase === 'Running').length;
      assert.ok(available >= 3, `round ${round}: ${available} available`);
      assert.ok(live.length <= 5, `round ${round}: ${live.length} pods`);
      // Terminating pods stop; new ones start.
      for (const p of s.owned())
        if (p.metadata.deletionTimestamp) s.h.client.remove('pods', p.metadata.name, 'default');
      await s.runAll();
    }
    const live = s.live();
    assert.equal(live.length, 4);
    assert.equal(hashes(live).length, 1);
    assert.notEqual(hashes(live)[0], oldHash);
    assert.equal(s.status().updatedReplicas, 4);
    assert.equal(s.status().observedGeneration, 2);
  });

  it('Recreate: every old pod goes, and new ones come only once none is left', async () => {
    const s = (current = await setup({
      deployments: [deployment('web', { replicas: 3, strategy: { type: 'Recreate' } })],
    }));
    await s.h.settle();
    await s.runAll();
    const d = s.h.client.data.deployments.get('default/web') as unknown as Deployment;
    const template = { ...d.spec.template, spec: { containers: [{ name: 'app', image: 'nginx:2' }] } };
    s.h.client.put('deployments', { ...d, spec: { ...d.spec, template } });
    await s.h.settle();
    assert.equal(s.live().length, 0);
    assert.equal(s.owned().length, 3, 'the old pods are terminating');
    await s.h.settle(10_000);
    assert.equal(s.live().length, 0, 'no new pod while an old one still runs');
    for (const p of s.owned()) s.h.client.remove('pods', p.metadata.name, 'default');
    await s.h.settle();
    assert.equal(s.live().length, 3);
    assert.equal(hashes(s.live()).length, 1);
  });

  it('leaves the cascade to the server: deleting a Deployment makes it delete no pod', async () => {
    const s = (current = await setup({ deployments: [deployment('web', { replicas: 2 })] }));
    await s.h.settle();
    const deletes = s.h.client.callsOf('pods', 'delete').length;
    await s.h.client.deployments('default').delete('web');
    await s.h.settle(1_000);
    assert.equal(s.h.client.callsOf('pods', 'delete').length, deletes);
    assert.equal(s.h.client.callsOf('pods', 'create').length, 2);
  });

  it('a failed create is retried with backoff and records FailedCreate', async () => {
    const s = (current = await setup({}));
    s.h.client.failNext('pods', 'create', new ServiceUnavailableError('the store is down'));
    s.h.client.put('deployments', deployment('web', { replicas: 2 }));
    await s.h.settle();
    assert.equal(s.owned().length, 0);
    assert.match(s.h.events('FailedCreate')[0]?.message ?? '', /^Error creating: the store is down/);
    await s.h.settle(5);
    assert.equal(s.owned().length, 2);
  });
});
