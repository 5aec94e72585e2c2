import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InternalError } from '../../src/core/errors.js';
import { defaultNodeLifecycleConfig, validateNodeLifecycleConfig } from '../../src/controller/node-lifecycle/config.js';
import { harness, makeLease, type Harness } from './node-lifecycle-harness.js';

async function runUntil(h: Harness, endMs: number, renewing: string[] = []): Promise<void> {
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(5_000);
    if (h.clock.monotonic() % 10_000 === 0) for (const n of renewing) h.renew(n);
    await h.controller.monitorNodeHealth();
  }
}

describe('config', () => {
  it('defaults are upstream and valid', () => {
    assert.deepEqual(validateNodeLifecycleConfig(defaultNodeLifecycleConfig), []);
    assert.equal(defaultNodeLifecycleConfig.nodeMonitorGracePeriodMs, 50_000);
  });
  it('refuses a grace not longer than the monitor period, and bad rates', () => {
    const p = validateNodeLifecycleConfig({
      ...defaultNodeLifecycleConfig,
      nodeMonitorGracePeriodMs: 5_000,
      nodeEvictionRate: -1,
      nodeWorkers: 0,
    });
    assert.ok(p.some((x) => x.includes('--node-monitor-grace-period must be longer than --node-monitor-period')));
    assert.ok(p.some((x) => x.includes('--node-eviction-rate')));
    assert.ok(p.some((x) => x.includes('node workers')));
  });
});

describe('run loop', () => {
  it('waits for the caches, then passes every period counted from the end of a pass, tainter in between, stops on abort', async () => {
    const h = harness();
    h.nodes.synced = false;
    h.addNode('ok', { ready: 'True', zone: 'z' });
    const ac = new AbortController();
    const done = h.controller.run(ac.signal);
    await h.clock.advance(1_000);
    assert.equal(h.controller.snapshot().passes, 0, 'not before the caches synced');
    h.nodes.synced = true;
    await h.clock.advance(100);
    assert.equal(h.controller.snapshot().passes, 1);
    const started = h.clock.monotonic();
    await h.clock.advance(4_999);
    assert.equal(h.controller.snapshot().passes, 1);
    await h.clock.advance(1);
    assert.equal(h.controller.snapshot().passes, 2);
    assert.equal(h.clock.monotonic() - started, 5_000);
    // Between passes the tainter runs every 100 ms: a node queued now is tainted on the next tick.
    h.addNode('down', { ready: 'Unknown', zone: 'z' });
    h.addNode('ok2', { ready: 'True', zone: 'z' });
    await h.clock.advance(5_000);
    assert.ok(h.noExecute('down'), 'first taint uses the full bucket in the pass');
    ac.abort();
    await h.clock.advance(100);
    await done;
    assert.equal(h.clock.pendingSleepers, 0);
  });

  it('a failing pass is logged and the loop keeps going', async () => {
    const h = harness();
    h.addNode('ok', { ready: 'True', zone: 'z' });
    const ac = new AbortController();
    const done = h.controller.run(ac.signal);
    await h.clock.advance(0);
    // The pass snapshots the node cache with list(): make it fail.
    const { list } = h.nodes;
    h.nodes.list = () => {
      throw new InternalError('boom');
    };
    await h.clock.advance(5_000);
    assert.ok(h.lines.some((l) => l.level === 'error' && l.msg.includes('pass failed')));
    Object.assign(h.nodes, { list });
    await h.clock.advance(5_000);
    assert.equal(h.controller.snapshot().passes, 3);
    ac.abort();
    await h.clock.advance(100);
    await done;
  });
});

describe('events', () => {
  it('RegisteredNode, NodeNotReady once while dead, NodeReady on return, RemovingNode', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    assert.deepEqual(
      h.events('RegisteredNode').map((e) => e.message),
      ['Node n1 event: Registered Node n1 in Controller', 'Node n2 event: Registered Node n2 in Controller'],
    );
    await runUntil(h, 120_000, ['n2']);
    const nnr = h.events('NodeNotReady');
    assert.equal(nnr.length, 1, 'once, not every pass');
    assert.equal(
      nnr[0]?.message,
      "Node n1 heartbeat timeout: no lease renewal or status heartbeat observed for 55s (grace 50s); last renewal observed at 12:00:00Z on the controller's clock, lease resourceVersion 3 (confirmed live)",
    );
    h.renew('n1');
    h.postReady('n1', 'True');
    await runUntil(h, 125_000, ['n2']);
    assert.equal(h.events('NodeReady').length, 1);
    const source = (h.events('NodeReady')[0] as unknown as { source: { component: string; host: string } }).source;
    assert.deepEqual(source, { component: 'node-controller', host: 'test-host' });
    h.client.syncNodes = true;
    h.nodes.remove('n1');
    await runUntil(h, 130_000, ['n2']);
    assert.equal(h.events('RemovingNode').length, 1);
    assert.equal(h.controller.healthOf('n1'), undefined);
  });

  it('an agent reporting Ready=False is a True → not-True transition too', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await h.clock.advance(5_000);
    h.postReady('n1', 'False');
    await h.controller.monitorNodeHealth();
    assert.match(h.events('NodeNotReady')[0]?.message ?? '', /Node n1 status is now: NodeNotReady \(Ready False/);
  });

  it('event write failures never fail a pass', async () => {
    const h = harness();
    h.client.failNext('events', 'create', new InternalError('down'), 10);
    h.addNode('n1', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    assert.ok(h.lines.some((l) => l.msg.includes('could not write event')));
    assert.equal(h.controller.snapshot().zones[0]?.state, 'Normal');
  });

  it('warns once per lease whose renew interval plus a period is not shorter than the grace', async () => {
    const h = harness();
    h.addNode('slow', { ready: 'True', zone: 'z' }, false);
    h.client.put('leases', makeLease('slow', h.clock.now(), 180));
    await h.controller.monitorNodeHealth();
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    const ev = h.events('LeaseRenewIntervalTooLong');
    assert.equal(ev.length, 1);
    assert.match(ev[0]?.message ?? '', /renews every 45s/);
    assert.equal(h.lines.filter((l) => l.msg.includes('renews every 45s')).length, 1);
  });
});

describe('pause detection', () => {
  it('a loop that ran late by more than a grace gives every node a fresh grace and says so', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 20_000, ['n1', 'n2']);
    // The process is stopped for two grace periods; the agents kept renewing, but the cache has not caught up.
    h.client.syncLeases = false;
    await h.clock.advance(100_000);
    await h.controller.monitorNodeHealth();
    assert.equal(h.statusWrites(), 0, 'silence the controller did not watch is not evidence');
    assert.equal(h.controller.healthOf('n1')?.probeTimestamp, 120_000);
    const ev = h.events('ControllerPaused');
    assert.equal(ev.length, 1);
    assert.equal(ev[0]?.type, 'Warning');
    assert.match(ev[0]?.message ?? '', /did not run for 100s/);
  });

  it('a gap of one period plus exactly the grace is not a pause', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await h.clock.advance(55_000);
    await h.controller.monitorNodeHealth();
    assert.equal(h.events('ControllerPaused').length, 0);
  });
});

describe('zone objects', () => {
  it('zone "" is written as default; only changes are written; vanished zones are deleted', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True' });
    h.addNode('n2', { ready: 'True', zone: 'west' });
    await h.controller.monitorNodeHealth();
    const def = h.client.data.zones.get('default') as unknown as { status: unknown };
    assert.deepEqual(def.status, { state: 'Normal', nodes: 1, notReady: 0, evictionRate: 0.1 });
    const metrics = await h.registry.metrics();
    assert.match(metrics, /shepherd_node_lifecycle_zone_size\{zone="west"\} 1/);
    assert.match(metrics, /shepherd_node_lifecycle_zone_health\{zone="west"\} 100/);
    assert.match(metrics, /shepherd_node_lifecycle_monitor_pass_duration_seconds_count 1/);
    const writes = (): number => h.client.callsOf('zones').filter((c) => c.op !== 'list' && c.op !== 'get').length;
    const before = writes();
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.equal(writes(), before, 'nothing changed: nothing written');
    h.nodes.remove('n2');
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.equal(h.client.data.zones.has('west'), false);
    assert.doesNotMatch(await h.registry.metrics(), /zone="west"/, 'series of a vanished zone are removed');
  });
});
