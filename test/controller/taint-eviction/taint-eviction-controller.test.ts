import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { TaintEvictionMetrics } from '../../../src/controller/taint-eviction/metrics.js';
import {
  TaintEvictionController,
  type TaintEvictionConfig,
} from '../../../src/controller/taint-eviction/taint-eviction-controller.js';
import { TAINT_NOT_READY, TAINT_UNREACHABLE, type Node, type Taint } from '../../../src/core/node.js';
import type { Pod, Toleration } from '../../../src/core/pod.js';
import { harness, node, pod, taint, type Harness } from '../workloads/fixtures.js';

const DEFAULTS: Toleration[] = [
  { key: TAINT_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

interface Setup {
  h: Harness;
  controller: TaintEvictionController;
  metrics: TaintEvictionMetrics;
  running: Promise<void>;
  terminating(): string[];
  setTaints(nodeName: string, taints: Taint[]): void;
  iso(offsetMs?: number): string;
}

async function setup(
  seed: { nodes?: Node[]; pods?: Pod[] },
  config: Partial<TaintEvictionConfig> = {},
  before?: (h: Harness) => void,
): Promise<Setup> {
  const h = harness(seed);
  before?.(h);
  const metrics = new TaintEvictionMetrics(new Registry());
  const controller = new TaintEvictionController({
    client: h.client,
    nodes: h.informers.nodes(),
    pods: h.informers.pods(),
    clock: h.clock,
    log: h.log,
    metrics,
    config,
  });
  await h.start();
  const running = controller.run(h.stop.signal);
  await h.settle();
  return {
    h,
    controller,
    metrics,
    running,
    terminating: () =>
      h
        .pods()
        .filter((p) => p.metadata.deletionTimestamp !== undefined)
        .map((p) => p.metadata.name)
        .sort(),
    setTaints(nodeName, taints) {
      const n = structuredClone(h.client.data.nodes.get(nodeName)) as unknown as Node;
      n.spec.taints = taints;
      h.client.put('nodes', n);
    },
    iso: (offsetMs = 0) => new Date(h.clock.now() + offsetMs).toISOString(),
  };
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.h.close();
  await current?.running;
  current = undefined;
});

const running = (name: string, nodeName: string, tolerations: Toleration[] = DEFAULTS): Pod =>
  pod(name, { nodeName, phase: 'Running', tolerations });

describe('taint-eviction controller', () => {
  it('deletes a pod at once when it does not tolerate a NoExecute taint, gracefully, with an event', async () => {
    const s = (current = await setup({ nodes: [node('n1')], pods: [running('p', 'n1'), running('q', 'n1')] }));
    s.setTaints('n1', [taint('maintenance', 'NoExecute', s.iso())]);
    await s.h.settle();
    assert.deepEqual(s.terminating(), ['p', 'q']);
    const ev = s.h.events('TaintManagerEviction');
    assert.deepEqual(ev.map((e) => e.message).sort(), [
      'Marking for deletion Pod default/p',
      'Marking for deletion Pod default/q',
    ]);
    assert.equal(ev[0]?.source.component, 'taint-eviction-controller');
    assert.deepEqual(ev.map((e) => `${e.involvedObject.namespace}/${e.involvedObject.name}`).sort(), [
      'default/p',
      'default/q',
    ]);
    assert.equal((await s.metrics.podDeletions.get()).values[0]?.value, 2);
  });

  it('deletes a tolerating pod tolerationSeconds after the taint was added, not before', async () => {
    const s = (current = await setup({ nodes: [node('n1')], pods: [running('p', 'n1')] }));
    s.setTaints('n1', [taint(TAINT_UNREACHABLE, 'NoExecute', s.iso())]);
    await s.h.settle();
    assert.equal(s.controller.pending, 1);
    assert.equal((await s.metrics.pending.get()).values[0]?.value, 1);
    await s.h.settle(299_999);
    assert.deepEqual(s.terminating(), []);
    await s.h.settle(1);
    assert.deepEqual(s.terminating(), ['p']);
    assert.equal(s.controller.pending, 0);
  });

  // A timer on the monotonic clock can wake a millisecond before the wall clock reaches the deadline (libuv's
  // cached loop time, a slewing wall clock): the pod is judged not yet due and must be armed again, not dropped.
  it('still deletes the pod when its timer wakes just before the wall-clock deadline', async () => {
    const s = (current = await setup({ nodes: [node('n1')], pods: [running('p', 'n1')] }));
    s.setTaints('n1', [taint(TAINT_UNREACHABLE, 'NoExecute', s.iso())]);
    await s.h.settle();
    s.h.clock.jumpWall(-2);
    await s.h.settle(300_000);
    assert.deepEqual(s.terminating(), []);
    assert.equal(s.controller.pending, 1);
    await s.h.settle(2);
    assert.deepEqual(s.terminating(), ['p']);
    assert.equal(s.controller.pending, 0);
  });

  it('leaves a pod that tolerates the taint without a limit', async () => {
    const forever: Toleration[] = [{ key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute' }];
    const s = (current = await setup({ nodes: [node('n1')], pods: [running('p', 'n1', forever)] }));
    s.setTaints('n1', [taint(TAINT_UNREACHABLE, 'NoExecute', s.iso())]);
    await s.h.settle(3_600_000);
    assert.deepEqual(s.terminating(), []);
    assert.equal(s.controller.pending, 0);
  });

  it('takes the smallest deadline over all the taints it matches', async () => {
    const tolerations: Toleration[] = [
      ...DEFAULTS,
      { key: 'maintenance', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    ];
    const s = (current = await setup({ nodes: [node('n1')], pods: [running('p', 'n1', tolerations)] }));
    s.setTaints('n1', [
      taint(TAINT_UNREACHABLE, 'NoExecute', s.iso()),
      taint('maintenance', 'NoExecute', s.iso(30_000)),
    ]);
    await s.h.settle(89_999);
    assert.deepEqual(s.terminating(), []);
    await s.h.settle(1);
    assert.deepEqual(s.terminating(), ['p']);
  });

  it('counts a taint without timeAdded from when it first saw it', async () => {
    const s = (current = await setup({ nodes: [node('n1')], pods: [running('p', 'n1')] }));
    await s.h.settle(50_000);
    s.setTaints('n1', [taint(TAINT_UNREACHABLE, 'NoExecute')]);
    await s.h.settle();
    assert.equal(s.controller.scheduledAt('default/p'), s.h.clock.now() + 300_000);
    // A later write of the node (a heartbeat) does not restart the count.
    await s.h.settle(200_000);
    const n = structuredClone(s.h.client.data.nodes.get('n1')) as unknown as Node;
    n.metadata.labels = { ...n.metadata.labels, touched: 'yes' };
    s.h.client.put('nodes', n);
    await s.h.settle(100_000);
    assert.deepEqual(s.terminating(), ['p']);
  });

  it('cancels a pending eviction when the taint goes (the node is Ready again), with an event', async () => {
    const s = (current = await setup({ nodes: [node('n1')], pods: [running('p', 'n1')] }));
    s.setTaints('n1', [taint(TAINT_UNREACHABLE, 'NoExecute', s.iso())]);
    await s.h.settle(100_000);
    s.setTaints('n1', []);
    await s.h.settle(600_000);
    assert.deepEqual(s.terminating(), []);
    assert.equal(s.controller.pending, 0);
    assert.deepEqual(
      s.h.events('TaintManagerEvictionCancelled').map((e) => e.message),
      ['Cancelling deletion of Pod default/p'],
    );
  });

  it('cancels every pending eviction when master disruption lifts every taint', async () => {
    const nodes = ['n1', 'n2', 'n3'].map((n) => node(n));
    const pods = nodes.flatMap((n, i) => [running(`a${i}`, n.metadata.name), running(`b${i}`, n.metadata.name)]);
    const s = (current = await setup({ nodes, pods }));
    for (const n of nodes) s.setTaints(n.metadata.name, [taint(TAINT_UNREACHABLE, 'NoExecute', s.iso())]);
    await s.h.settle(10_000);
    assert.equal(s.controller.pending, 6);
    for (const n of nodes) s.setTaints(n.metadata.name, []);
    await s.h.settle(400_000);
    assert.deepEqual(s.terminating(), []);
    assert.equal(s.controller.pending, 0);
    assert.equal(s.h.events('TaintManagerEvictionCancelled').length, 6);
  });

  it('never deletes a pod that is already terminating', async () => {
    const s = (current = await setup({
      nodes: [node('n1')],
      pods: [pod('going', { nodeName: 'n1', phase: 'Running', deleting: true })],
    }));
    s.setTaints('n1', [taint('maintenance', 'NoExecute', s.iso())]);
    await s.h.settle(1_000);
    assert.equal(s.h.client.callsOf('pods', 'delete').length, 0);
  });

  it('after a restart, rebuilds pending evictions from timeAdded, not from zero', async () => {
    let added = '';
    const s = (current = await setup({ nodes: [node('n1')], pods: [running('p', 'n1')] }, {}, (h) => {
      // Tainted 200 s before this controller started.
      added = new Date(h.clock.now() - 200_000).toISOString();
      const n = structuredClone(h.client.data.nodes.get('n1')) as unknown as Node;
      n.spec.taints = [taint(TAINT_UNREACHABLE, 'NoExecute', added)];
      h.client.put('nodes', n);
    }));
    assert.equal(s.controller.scheduledAt('default/p'), Date.parse(added) + 300_000);
    await s.h.settle(99_999);
    assert.deepEqual(s.terminating(), []);
    await s.h.settle(1);
    assert.deepEqual(s.terminating(), ['p']);
  });

  it('releases evictions overdue at restart at the rebuild rate, judging each again before deleting it', async () => {
    const nodes = ['n1', 'n2', 'n3'].map((n) => node(n));
    const pods = nodes.flatMap((n, i) => [running(`a${i}`, n.metadata.name), running(`b${i}`, n.metadata.name)]);
    const s = (current = await setup({ nodes, pods }, { rebuildRate: 1 }, (h) => {
      const long = new Date(h.clock.now() - 3_600_000).toISOString();
      for (const n of nodes) {
        const copy = structuredClone(h.client.data.nodes.get(n.metadata.name)) as unknown as Node;
        copy.spec.taints = [taint(TAINT_UNREACHABLE, 'NoExecute', long)];
        h.client.put('nodes', copy);
      }
    }));
    // Oldest deadline first, then by name: a0, a1, a2, b0, b1, b2, one a second.
    assert.deepEqual(s.terminating(), ['a0'], 'only one at once');
    assert.equal((await s.metrics.rebuildBacklog.get()).values[0]?.value, 5);
    await s.h.settle(1_000);
    assert.deepEqual(s.terminating(), ['a0', 'a1']);
    // n3 comes back while its pods still wait their turn: they stay.
    s.setTaints('n3', []);
    await s.h.settle(999);
    assert.deepEqual(s.terminating(), ['a0', 'a1']);
    await s.h.settle(1);
    assert.deepEqual(s.terminating(), ['a0', 'a1', 'b0']);
    await s.h.settle(10_000);
    assert.deepEqual(s.terminating(), ['a0', 'a1', 'b0', 'b1']);
    assert.equal(s.controller.pending, 0);
    assert.equal(s.h.events('TaintManagerEvictionCancelled').length, 2);
  });
});
