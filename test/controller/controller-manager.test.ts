import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { ControllerManager } from '../../src/controller/controller-manager.js';
import { parseControllers } from '../../src/controller/controller-names.js';
import { defaultNodeLifecycleConfig } from '../../src/controller/node-lifecycle/config.js';
import type { Deployment } from '../../src/core/deployment.js';
import { recordingLogger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { FakeClock, flush } from '../support/fake-clock.js';
import { deployment, node } from './workloads/fixtures.js';

function world(): { clock: FakeClock; client: FakeApiClient } {
  const clock = new FakeClock();
  const client = new FakeApiClient({ now: () => clock.now() });
  for (const n of ['a1', 'b1']) client.put('nodes', node(n, { zone: n[0] as string }));
  return { clock, client };
}

describe('controller manager', () => {
  it('runs every controller over one set of informers: a Deployment gets pods, bound across zones', async () => {
    const { clock, client } = world();
    const metrics = new Registry();
    const manager = new ControllerManager({
      client,
      clock,
      random: seededRandom(2),
      log: recordingLogger(),
      enabled: parseControllers(['*']),
      nodeLifecycle: defaultNodeLifecycleConfig,
      metrics,
    });
    const stop = new AbortController();
    let synced = false;
    const term = manager.run(stop.signal, { onSynced: () => (synced = true) });
    client.put('deployments', deployment('web', { replicas: 4 }));
    for (let i = 0; i < 20; i++) await clock.advance(100);
    assert.ok(synced);
    const pods = [...client.data.pods.values()] as unknown as Array<{ spec: { nodeName?: string } }>;
    assert.equal(pods.length, 4);
    assert.deepEqual(pods.map((p) => p.spec.nodeName).sort(), ['a1', 'a1', 'b1', 'b1']);
    const d = client.data.deployments.get('default/web') as unknown as Deployment;
    assert.equal(d.status.replicas, 4);
    // Each resource is listed and watched once, whatever the number of controllers reading it.
    assert.equal(client.callsOf('pods', 'list').length, 1);
    assert.equal(client.callsOf('nodes', 'list').length, 1);
    stop.abort();
    await term;
    // A second term (leading again) builds fresh controllers on the same metrics: nothing is registered twice.
    const again = new AbortController();
    const second = manager.run(again.signal);
    for (let i = 0; i < 5; i++) await clock.advance(100);
    again.abort();
    await second;
    const names = (await metrics.getMetricsAsJSON()).map((m) => m.name);
    assert.equal(new Set(names).size, names.length);
    assert.ok(names.includes('shepherd_scheduler_schedule_attempts_total'));
    assert.ok(names.includes('shepherd_taint_eviction_pending_evictions'));
    assert.ok(names.includes('shepherd_node_lifecycle_zone_size'));
  });

  it('runs only the controllers asked for, and only the informers they read', async () => {
    const { clock, client } = world();
    const manager = new ControllerManager({
      client,
      clock,
      random: seededRandom(2),
      log: recordingLogger(),
      enabled: parseControllers(['node-lifecycle']),
      nodeLifecycle: defaultNodeLifecycleConfig,
    });
    const stop = new AbortController();
    const term = manager.run(stop.signal);
    await flush();
    await clock.advance(100);
    assert.equal(client.callsOf('pods', 'list').length, 0);
    assert.equal(client.callsOf('leases', 'list').length, 1);
    stop.abort();
    await term;
  });
});
