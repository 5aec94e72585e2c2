import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { SchedulerMetrics } from '../../../src/controller/scheduler/metrics.js';
import { Scheduler, type SchedulerConfig } from '../../../src/controller/scheduler/scheduler.js';
import { ServiceUnavailableError } from '../../../src/core/errors.js';
import { TAINT_UNREACHABLE, type Node } from '../../../src/core/node.js';
import type { Pod } from '../../../src/core/pod.js';
import type { ApiClient } from '../../../src/client/api-client.js';
import { gatedBinds, harness, node, pod, taint, type Harness } from '../workloads/fixtures.js';

const OWNER = { name: 'web', uid: 'uid-web' };

interface Setup {
  h: Harness;
  scheduler: Scheduler;
  metrics: SchedulerMetrics;
  running: Promise<void>;
  attempts(result: string): Promise<number>;
  boundTo(): Record<string, string>;
}

async function setup(
  seed: { nodes?: Node[]; pods?: Pod[] },
  options: { api?: (h: Harness) => ApiClient; config?: Partial<SchedulerConfig> } = {},
): Promise<Setup> {
  const h = harness(seed);
  const metrics = new SchedulerMetrics(new Registry());
  const scheduler = new Scheduler({
    client: options.api?.(h) ?? h.client,
    nodes: h.informers.nodes(),
    pods: h.informers.pods(),
    clock: h.clock,
    log: h.log,
    metrics,
    ...(options.config ? { config: options.config } : {}),
  });
  await h.start();
  const running = scheduler.run(h.stop.signal);
  await h.settle();
  return {
    h,
    scheduler,
    metrics,
    running,
    async attempts(result) {
      const m = await metrics.attempts.get();
      return m.values.find((v) => v.labels.result === result)?.value ?? 0;
    },
    boundTo() {
      return Object.fromEntries(h.pods().map((p) => [p.metadata.name, p.spec.nodeName ?? '']));
    },
  };
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.h.close();
  await current?.running;
  current = undefined;
});

const owned = (name: string): Pod => pod(name, { owner: OWNER });

describe('scheduler', () => {
  it('binds pending pods, spreading one owner across zones, then nodes, and writes Scheduled events', async () => {
    const nodes = ['a1', 'a2', 'b1', 'b2', 'c1', 'c2'].map((n) => node(n, { zone: n[0] as string }));
    const s = (current = await setup({ nodes, pods: [1, 2, 3, 4, 5, 6].map((i) => owned(`web-${i}`)) }));
    await s.h.settle(1_000);
    const placed = s.boundTo();
    assert.deepEqual(Object.values(placed).sort(), ['a1', 'a2', 'b1', 'b2', 'c1', 'c2']);
    assert.equal(await s.attempts('scheduled'), 6);
    const scheduled = s.h.events('Scheduled');
    assert.equal(scheduled.length, 6);
    assert.ok(scheduled.some((e) => e.message === `Successfully assigned default/web-1 to ${placed['web-1']}`));
    assert.equal(scheduled[0]?.source.component, 'scheduler');
    assert.equal(scheduled[0]?.involvedObject.namespace, 'default');
    const condition = s.h.podNamed('web-1')?.status.conditions?.find((c) => c.type === 'PodScheduled');
    assert.equal(condition?.status, 'True');
  });

  it('assumes a pod on its node as soon as the binding is sent, so a burst does not pile onto one node', async () => {
    const nodes = [node('n1'), node('n2'), node('n3')];
    const pods = [1, 2, 3, 4, 5, 6].map((i) => owned(`web-${i}`));
    let gate: ReturnType<typeof gatedBinds> | undefined;
    const s = (current = await setup({ nodes, pods }, { api: (h) => (gate = gatedBinds(h.client)).api }));
    await s.h.settle();
    // Every binding is still held: only the cache's assumptions can have spread them.
    assert.equal(gate?.waiting(), 6);
    const perNode = ['n1', 'n2', 'n3'].map((n) => s.scheduler.cache.node(n)?.usage.pods);
    assert.deepEqual(perNode, [2, 2, 2]);
    gate?.release();
    await s.h.settle();
    const counts = new Map<string, number>();
    for (const n of Object.values(s.boundTo())) counts.set(n, (counts.get(n) ?? 0) + 1);
    assert.deepEqual([...counts.values()], [2, 2, 2]);
    assert.deepEqual(
      ['n1', 'n2', 'n3'].map((n) => s.scheduler.cache.node(n)?.usage.pods),
      [2, 2, 2],
    );
  });

  it('a failed binding forgets the assumption and tries the pod again after 1 s', async () => {
    const s = (current = await setup({ nodes: [node('n1')] }));
    s.h.client.failNext('pods', 'bind', new ServiceUnavailableError('etcd is down'));
    s.h.client.put('pods', owned('web-1'));
    await s.h.settle();
    assert.equal(s.boundTo()['web-1'], '');
    assert.equal(s.scheduler.cache.node('n1')?.usage.pods, 0);
    await s.h.settle(999);
    assert.equal(s.boundTo()['web-1'], '');
    await s.h.settle(1);
    assert.equal(s.boundTo()['web-1'], 'n1');
  });

  it("reports FailedScheduling in kube-scheduler's words and marks PodScheduled=False", async () => {
    const nodes = [
      ...[1, 2, 3].map((i) => node(`dead-${i}`, { ready: 'Unknown', taints: [taint(TAINT_UNREACHABLE, 'NoExecute')] })),
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => node(`cordoned-${i}`, { unschedulable: true })),
    ];
    const s = (current = await setup({ nodes, pods: [pod('lonely', { tolerations: [] })] }));
    await s.h.settle(1_000);
    const message =
      '0/12 nodes are available: 3 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 9 node(s) were unschedulable.';
    const failed = s.h.events('FailedScheduling');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.message, message);
    assert.equal(failed[0]?.type, 'Warning');
    const condition = s.h.podNamed('lonely')?.status.conditions?.find((c) => c.type === 'PodScheduled');
    assert.deepEqual([condition?.status, condition?.reason, condition?.message], ['False', 'Unschedulable', message]);
    assert.equal(s.scheduler.unschedulable, 1);
  });

  it('an unschedulable pod waits for a node change, never loops, and is retried after its backoff', async () => {
    const s = (current = await setup({ nodes: [node('n1', { unschedulable: true })], pods: [pod('p')] }));
    await s.h.settle(1_000);
    assert.equal(await s.attempts('unschedulable'), 1);
    // A minute without a relevant change: not one more attempt.
    await s.h.settle(60_000);
    assert.equal(await s.attempts('unschedulable'), 1);
    // Heartbeats (status writes that change nothing the scheduler judges) do not wake it either.
    for (let i = 0; i < 5; i++) {
      const n = structuredClone(s.h.client.data.nodes.get('n1')) as unknown as Node;
      n.status.conditions = n.status.conditions?.map((c) => ({
        ...c,
        lastHeartbeatTime: new Date(s.h.clock.now()).toISOString(),
      }));
      s.h.client.put('nodes', n);
      await s.h.settle(1_000);
    }
    assert.equal(await s.attempts('unschedulable'), 1);
    // A label change might help (a nodeSelector): tried again at once, since its 1 s backoff is over, and fails.
    const labelled = structuredClone(s.h.client.data.nodes.get('n1')) as unknown as Node;
    labelled.metadata.labels = { ...labelled.metadata.labels, tier: 'web' };
    s.h.client.put('nodes', labelled);
    await s.h.settle();
    assert.equal(await s.attempts('unschedulable'), 2);
    // Uncordoned 100 ms later: it waits out its 2 s backoff, then binds.
    await s.h.settle(100);
    const uncordoned = structuredClone(s.h.client.data.nodes.get('n1')) as unknown as Node;
    uncordoned.spec.unschedulable = false;
    s.h.client.put('nodes', uncordoned);
    await s.h.settle(1_800);
    assert.equal(s.boundTo()['p'], '');
    await s.h.settle(100);
    assert.equal(s.boundTo()['p'], 'n1');
    assert.equal(await s.attempts('unschedulable'), 2);
  });

  it('backs off 1 s, 2 s, 4 s, 8 s, 10 s, 10 s however often nodes change', async () => {
    const s = (current = await setup({ nodes: [node('n1', { unschedulable: true })], pods: [pod('p')] }));
    const times: number[] = [];
    let last = await s.attempts('unschedulable');
    const start = s.h.clock.monotonic();
    times.push(0);
    // A node that keeps changing labels every 100 ms for 40 s.
    for (let t = 0; t < 400; t++) {
      const n = structuredClone(s.h.client.data.nodes.get('n1')) as unknown as Node;
      n.metadata.labels = { ...n.metadata.labels, tick: String(t) };
      s.h.client.put('nodes', n);
      await s.h.settle(100);
      const now = await s.attempts('unschedulable');
      if (now !== last) times.push(Math.round((s.h.clock.monotonic() - start) / 100) * 100);
      last = now;
    }
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    assert.deepEqual(gaps.slice(0, 6), [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('tries an unschedulable pod again after 5 minutes even without a node change', async () => {
    const s = (current = await setup({ nodes: [node('n1', { ready: 'False' })], pods: [pod('p')] }));
    await s.h.settle(1_000);
    assert.equal(await s.attempts('unschedulable'), 1);
    await s.h.settle(4 * 60_000);
    assert.equal(await s.attempts('unschedulable'), 1);
    await s.h.settle(70_000);
    assert.equal(await s.attempts('unschedulable'), 2);
  });

  it('retries parked pods when a bound pod goes away and frees room', async () => {
    const s = (current = await setup({
      nodes: [node('n1', { maxPods: 1 })],
      pods: [pod('old', { nodeName: 'n1', phase: 'Running' }), pod('new')],
    }));
    await s.h.settle(1_000);
    assert.match(s.h.events('FailedScheduling')[0]?.message ?? '', /1 Too many pods\.$/);
    s.h.client.remove('pods', 'old', 'default');
    await s.h.settle(1_000);
    assert.equal(s.boundTo()['new'], 'n1');
  });

  it('never binds a terminating pod or one already bound', async () => {
    const s = (current = await setup({
      nodes: [node('n1')],
      pods: [pod('going', { deleting: true }), pod('there', { nodeName: 'n1', phase: 'Running' })],
    }));
    await s.h.settle(1_000);
    assert.equal(s.h.client.callsOf('pods', 'bind').length, 0);
  });

  it('does not place pods before both caches have synced, and stops cleanly', async () => {
    const s = (current = await setup({ nodes: [node('n1')], pods: [pod('p')] }));
    await s.h.settle();
    assert.equal(s.boundTo()['p'], 'n1');
    await s.h.close();
    await s.running;
    s.h.client.put('pods', pod('later'));
    await s.h.settle(5_000);
    assert.equal(s.boundTo()['later'], '');
  });
});
