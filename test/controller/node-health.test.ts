import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConflictError, InternalError } from '../../src/core/errors.js';
import type { Lease } from '../../src/core/lease.js';
import type { Node, NodeCondition } from '../../src/core/node.js';
import {
  heartbeatTimeoutMessage,
  isExpired,
  leaseRenewIntervalTooLong,
  markUnknown,
  observedHeartbeat,
  observeNode,
  type NodeHealth,
} from '../../src/controller/node-lifecycle/node-health.js';
import { harness, makeLease, makeNode } from './node-lifecycle-harness.js';

const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const timings = { nodeMonitorGracePeriodMs: 50_000, nodeStartupGracePeriodMs: 60_000 };
const iso = (ms: number): string => new Date(T0 + ms).toISOString();

function ready(heartbeatMs: number, transitionMs = 0, status: NodeCondition['status'] = 'True'): NodeCondition {
  return { type: 'Ready', status, lastHeartbeatTime: iso(heartbeatMs), lastTransitionTime: iso(transitionMs) };
}
function node(conditions: NodeCondition[]): Node {
  return makeNode('n1', T0, { conditions });
}
function lease(renewMs: number, rv = '7', labels?: Record<string, string>): Lease {
  const l = makeLease('n1', T0 + renewMs);
  l.metadata.resourceVersion = rv;
  if (labels) l.metadata.labels = labels;
  return l;
}
function record(probe: number, conditions: NodeCondition[], l?: Lease): NodeHealth {
  return { probeTimestamp: probe, readyTransitionTimestamp: probe, status: { conditions }, lease: l };
}

// docs/node-lifecycle.md#heartbeats
describe('observeNode: when the probe timestamp moves', () => {
  const cases: Array<{
    name: string;
    prev: NodeHealth | undefined;
    node: Node;
    lease?: Lease;
    wantProbe: number;
    wantGrace: number;
  }> = [
    {
      name: 'first sight with Ready: fresh grace',
      prev: undefined,
      node: node([ready(0)]),
      wantProbe: 1000,
      wantGrace: 50_000,
    },
    {
      name: 'first sight without Ready: fresh startup grace',
      prev: undefined,
      node: node([]),
      wantProbe: 1000,
      wantGrace: 60_000,
    },
    {
      name: 'same heartbeat, no lease: unchanged',
      prev: record(10, [ready(0)]),
      node: node([ready(0)]),
      wantProbe: 10,
      wantGrace: 50_000,
    },
    {
      name: 'changed heartbeat: probe = now',
      prev: record(10, [ready(0)]),
      node: node([ready(5)]),
      wantProbe: 1000,
      wantGrace: 50_000,
    },
    {
      name: 'heartbeat stepping back still counts',
      prev: record(10, [ready(5)]),
      node: node([ready(1)]),
      wantProbe: 1000,
      wantGrace: 50_000,
    },
    {
      name: 'Ready appears: probe = now',
      prev: record(10, []),
      node: node([ready(0)]),
      wantProbe: 1000,
      wantGrace: 50_000,
    },
    {
      name: 'Ready removed: startup grace, probe kept, as upstream',
      prev: record(10, [ready(0)]),
      node: node([]),
      wantProbe: 10,
      wantGrace: 60_000,
    },
    {
      name: 'first lease seen: probe = now',
      prev: record(10, [ready(0)]),
      node: node([ready(0)]),
      lease: lease(3),
      wantProbe: 1000,
      wantGrace: 50_000,
    },
    {
      name: 'renewTime unchanged: no renewal',
      prev: record(10, [ready(0)], lease(3)),
      node: node([ready(0)]),
      lease: lease(3),
      wantProbe: 10,
      wantGrace: 50_000,
    },
    {
      name: 'lease label edit is not a renewal',
      prev: record(10, [ready(0)], lease(3, '7')),
      node: node([ready(0)]),
      lease: lease(3, '9', { x: 'y' }),
      wantProbe: 10,
      wantGrace: 50_000,
    },
    {
      name: 'renewTime later: renewal',
      prev: record(10, [ready(0)], lease(3)),
      node: node([ready(0)]),
      lease: lease(4),
      wantProbe: 1000,
      wantGrace: 50_000,
    },
    {
      name: 'renewTime stepping BACK is a renewal',
      prev: record(10, [ready(0)], lease(3)),
      node: node([ready(0)]),
      lease: lease(2),
      wantProbe: 1000,
      wantGrace: 50_000,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const obs = observeNode(c.prev, c.node, c.lease, 1000, timings);
      assert.equal(obs.health.probeTimestamp, c.wantProbe);
      assert.equal(obs.gracePeriodMs, c.wantGrace);
    });
  }

  it('moves the probe exactly when the renewal rule (observedHeartbeat, also used by the fast path) says so', () => {
    const readyOf = (conditions: NodeCondition[] | undefined) => conditions?.find((x) => x.type === 'Ready');
    for (const c of cases) {
      if (c.prev === undefined) continue;
      const saved = readyOf(c.prev.status.conditions);
      const heartbeat = observedHeartbeat(saved, readyOf(c.node.status.conditions), c.prev.lease, c.lease);
      assert.equal(heartbeat, c.wantProbe === 1000, c.name);
    }
  });

  it('records the newest cached lease even when it is not a renewal, and a heartbeat keeps the lease', () => {
    const edited = lease(3, '9', { x: 'y' });
    const a = observeNode(record(10, [ready(0)], lease(3, '7')), node([ready(0)]), edited, 1000, timings);
    assert.equal(a.health.lease?.metadata.resourceVersion, '9');
    const b = observeNode(a.health, node([ready(8)]), undefined, 2000, timings);
    assert.equal(b.health.probeTimestamp, 2000);
    assert.equal(b.health.lease?.metadata.resourceVersion, '9');
  });

  it('never mutates the previous record', () => {
    const prev = record(10, [ready(0)]);
    observeNode(prev, node([ready(5)]), lease(1), 1000, timings);
    assert.equal(prev.probeTimestamp, 10);
    assert.equal(prev.lease, undefined);
  });
});

describe('isExpired: strictly past the grace', () => {
  for (const [now, want] of [
    [50_009, false],
    [50_010, false],
    [50_011, true],
  ] as const) {
    it(`probe 10, grace 50s, now ${now} → ${want}`, () => assert.equal(isExpired(record(10, []), 50_000, now), want));
  }
});

// docs/node-lifecycle.md#d3-unknown-covers-every-condition
describe('markUnknown', () => {
  it('turns every reported condition Unknown and adds the missing ones as NeverUpdated', () => {
    const n = node([
      ready(0),
      { type: 'NetworkUnavailable', status: 'False', lastHeartbeatTime: iso(0) },
      { type: 'DiskPressure', status: 'Unknown' },
    ]);
    const { conditions, changed } = markUnknown(n, T0 + 99_000);
    assert.equal(changed, true);
    const by = new Map(conditions.map((c) => [c.type, c]));
    assert.deepEqual([...by.keys()].sort(), [
      'DiskPressure',
      'MemoryPressure',
      'NetworkUnavailable',
      'PIDPressure',
      'Ready',
    ]);
    assert.equal(by.get('Ready')?.status, 'Unknown');
    assert.equal(by.get('Ready')?.reason, 'NodeStatusUnknown');
    assert.equal(by.get('Ready')?.lastHeartbeatTime, iso(0), 'heartbeat kept');
    assert.equal(by.get('Ready')?.lastTransitionTime, iso(99_000));
    assert.equal(by.get('NetworkUnavailable')?.status, 'Unknown');
    assert.equal(by.get('DiskPressure')?.reason, undefined, 'already Unknown: untouched');
    assert.equal(by.get('MemoryPressure')?.reason, 'NodeStatusNeverUpdated');
    assert.equal(by.get('MemoryPressure')?.lastHeartbeatTime, n.metadata.creationTimestamp);
  });

  it('reports no change when everything is already Unknown', () => {
    const all = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({
      type,
      status: 'Unknown' as const,
    }));
    assert.equal(markUnknown(node(all), T0).changed, false);
  });
});

describe('helpers', () => {
  it('formats the NodeNotReady evidence exactly', () => {
    assert.equal(
      heartbeatTimeoutMessage('node-1', 52_400, 50_000),
      'Node node-1 heartbeat timeout: no lease renewal or status heartbeat observed for 52s (grace 50s)',
    );
  });
  it('flags leases whose renew interval plus a period reaches the grace', () => {
    assert.equal(leaseRenewIntervalTooLong(makeLease('a', T0, 40), 5_000, 50_000), false);
    assert.equal(leaseRenewIntervalTooLong(makeLease('a', T0, 180), 5_000, 50_000), true);
  });
});

describe('controller: node health over passes', () => {
  it('startup grace: a node without Ready is marked only after 60 s, with NeverUpdated conditions', async () => {
    const h = harness();
    h.addNode('n1', {}, false);
    for (let t = 0; t <= 60_000; t += 5_000) {
      if (t > 0) await h.clock.advance(5_000);
      await h.controller.monitorNodeHealth();
    }
    assert.equal(h.statusWrites('n1'), 0, 'exactly at the grace: not yet');
    await h.clock.advance(1);
    await h.controller.monitorNodeHealth();
    assert.equal(h.statusWrites('n1'), 1);
    const conds = h.node('n1').status.conditions ?? [];
    assert.equal(conds.find((c) => c.type === 'Ready')?.reason, 'NodeStatusNeverUpdated');
  });

  it('a renewing lease keeps a node Ready; silence marks it Unknown at the first pass past the grace', async () => {
    const h = harness();
    h.addNode('n1');
    for (let t = 0; t < 100_000; t += 5_000) {
      if (t % 10_000 === 0) h.renew('n1');
      await h.controller.monitorNodeHealth();
      await h.clock.advance(5_000);
    }
    assert.equal(h.statusWrites(), 0);
    // Last renewal seen at t=90s (pass at 90 s): marked at the first pass with now > 140 s.
    for (let t = 100_000; t <= 140_000; t += 5_000) {
      await h.controller.monitorNodeHealth();
      if (t < 140_000) await h.clock.advance(5_000);
    }
    assert.equal(h.statusWrites(), 0, 'at 140 s exactly: not yet');
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.equal(h.statusWrites('n1'), 1);
    assert.equal(h.node('n1').status.conditions?.find((c) => c.type === 'Ready')?.status, 'Unknown');
    const ev = h.events('NodeNotReady');
    assert.equal(ev.length, 1);
    assert.equal(ev[0]?.type, 'Warning');
    assert.equal(
      ev[0]?.message,
      "Node n1 heartbeat timeout: no lease renewal or status heartbeat observed for 55s (grace 50s); last renewal observed at 12:01:30Z on the controller's clock, lease resourceVersion 15 (confirmed live)",
    );
  });

  it('conflict on the status write: live GET and re-evaluate; a fresh heartbeat found live cancels the mark', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True' }, false);
    await h.controller.monitorNodeHealth();
    await h.clock.advance(50_001);
    h.client.syncNodes = false;
    h.postReady('n1', 'True'); // the agent posted, the cache has not seen it: the PUT conflicts
    await h.controller.monitorNodeHealth();
    assert.equal(h.client.callsOf('nodes', 'updateStatus').length, 1);
    assert.equal(h.client.callsOf('nodes', 'get').length, 1, 'one live GET after the conflict');
    assert.equal(h.node('n1').status.conditions?.[0]?.status, 'True', 'not marked: the live copy has a new heartbeat');
    assert.equal(h.controller.healthOf('n1')?.probeTimestamp, 50_001);
  });

  it('five failed tries: the node is skipped for the pass (not counted, not tainted) and tried again next pass', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' }, false);
    await h.controller.monitorNodeHealth();
    await h.clock.advance(50_001);
    h.client.failNext('nodes', 'updateStatus', new ConflictError('nodes', 'n1'), 5);
    await h.controller.monitorNodeHealth();
    assert.equal(h.statusWrites('n1'), 5);
    assert.equal(h.client.callsOf('nodes', 'get').length, 4);
    assert.equal(h.node('n1').status.conditions?.[0]?.status, 'True');
    assert.equal(h.controller.snapshot().zones[0]?.nodes ?? 0, 0, 'skipped node is not counted');
    assert.ok(h.lines.some((l) => l.msg.includes('skipping the node for this pass')));
    await h.controller.monitorNodeHealth();
    assert.equal(h.node('n1').status.conditions?.[0]?.status, 'Unknown');
  });

  it('another write error is retried the same way and never crashes the pass', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True' }, false);
    await h.controller.monitorNodeHealth();
    await h.clock.advance(50_001);
    h.client.failNext('nodes', 'updateStatus', new InternalError('disk full'), 1);
    await h.controller.monitorNodeHealth();
    assert.equal(h.statusWrites('n1'), 2);
    assert.equal(h.node('n1').status.conditions?.[0]?.status, 'Unknown');
  });
});
