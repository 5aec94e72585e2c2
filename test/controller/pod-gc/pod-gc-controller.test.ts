import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { ApiClient, DeleteOptions, PodClient } from '../../../src/client/api-client.js';
import { PodGcMetrics } from '../../../src/controller/pod-gc/metrics.js';
import { PodGcController } from '../../../src/controller/pod-gc/pod-gc-controller.js';
import type { Node } from '../../../src/core/node.js';
import type { Pod } from '../../../src/core/pod.js';
import type { FakeApiClient } from '../../support/fake-api-client.js';
import { harness, node, pod, type Harness } from '../workloads/fixtures.js';

/** The client, recording the options of every pod DELETE. */
function recordingDeletes(client: FakeApiClient): {
  api: ApiClient;
  deletes: Array<{ name: string; options?: DeleteOptions }>;
} {
  const deletes: Array<{ name: string; options?: DeleteOptions }> = [];
  const wrap = (pods: PodClient): PodClient =>
    new Proxy(pods, {
      get(target, prop) {
        if (prop === 'delete')
          return (name: string, options?: DeleteOptions) => {
            deletes.push({ name, ...(options ? { options } : {}) });
            return target.delete(name, options);
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
  return { api, deletes };
}

interface Setup {
  h: Harness;
  deletes: Array<{ name: string; options?: DeleteOptions }>;
  metrics: PodGcMetrics;
  running: Promise<void>;
  names(): string[];
}

async function setup(
  seed: { nodes?: Node[]; pods?: Pod[] },
  nodesCache?: (h: Harness) => ConstructorParameters<typeof PodGcController>[0]['nodes'],
): Promise<Setup> {
  const h = harness(seed);
  const { api, deletes } = recordingDeletes(h.client);
  const metrics = new PodGcMetrics(new Registry());
  const controller = new PodGcController({
    client: api,
    nodes: nodesCache?.(h) ?? h.informers.nodes(),
    pods: h.informers.pods(),
    clock: h.clock,
    log: h.log,
    metrics,
  });
  await h.start();
  const running = controller.run(h.stop.signal);
  await h.settle();
  return {
    h,
    deletes,
    metrics,
    running,
    names: () =>
      h
        .pods()
        .map((p) => p.metadata.name)
        .sort(),
  };
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.h.close();
  await current?.running;
  current = undefined;
});

const on = (name: string, nodeName?: string): Pod =>
  pod(name, { ...(nodeName ? { nodeName } : {}), phase: nodeName ? 'Running' : 'Pending' });

describe('pod GC (orphaned pods)', () => {
  it('deletes at once, with grace 0, the pods of a node that was deleted', async () => {
    const s = (current = await setup({
      nodes: [node('n1'), node('n2')],
      pods: [on('a', 'n1'), on('b', 'n1'), on('c', 'n2')],
    }));
    s.h.client.remove('nodes', 'n1');
    await s.h.settle();
    assert.deepEqual(s.names(), ['c']);
    assert.deepEqual(s.deletes, [
      { name: 'a', options: { gracePeriodSeconds: 0 } },
      { name: 'b', options: { gracePeriodSeconds: 0 } },
    ]);
    assert.equal((await s.metrics.orphansDeleted.get()).values[0]?.value, 2);
  });

  it('collects at start the pods bound to nodes that are already gone, and leaves unbound pods alone', async () => {
    const s = (current = await setup({ nodes: [node('n1')], pods: [on('a', 'ghost'), on('b', 'n1'), on('c')] }));
    assert.deepEqual(s.names(), ['b', 'c']);
  });

  it('a pod bound later to a node that does not exist is collected too', async () => {
    const s = (current = await setup({ nodes: [node('n1')] }));
    s.h.client.put('pods', on('late', 'nowhere'));
    await s.h.settle();
    assert.deepEqual(s.names(), []);
  });

  it('does not trust a cache that lags: a node the API still has keeps its pods', async () => {
    const blind = { onEvent: () => () => undefined, waitForSync: () => Promise.resolve(), get: () => undefined };
    const s = (current = await setup({ nodes: [node('n1')], pods: [on('a', 'n1')] }, () => blind));
    await s.h.settle(60_000);
    assert.deepEqual(s.names(), ['a']);
    assert.equal(s.deletes.length, 0);
    assert.ok(s.h.client.callsOf('nodes', 'get').length >= 1, 'it asked the API');
  });
});
