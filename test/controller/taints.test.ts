import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConflictError } from '../../src/core/errors.js';
import type { Taint } from '../../src/core/node.js';
import {
  desiredNoScheduleKeys,
  NOT_READY_NO_EXECUTE,
  reconcileNoSchedule,
  swapTaints,
  UNREACHABLE_NO_EXECUTE,
  writeTaints,
} from '../../src/controller/node-lifecycle/taints.js';
import { harness, type Harness } from './node-lifecycle-harness.js';

const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const AT = new Date(T0).toISOString();

/** Passes every 5 s until monotonic `endMs`; `alive` leases renew every 10 s, just before that pass. */
async function runUntil(h: Harness, endMs: number, alive: string[] = []): Promise<void> {
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(5_000);
    if (h.clock.monotonic() % 10_000 === 0) for (const n of alive) h.renew(n);
    await h.controller.monitorNodeHealth();
  }
}

describe('taint list helpers', () => {
  it('NoSchedule mirrors follow the conditions and unschedulable', () => {
    const keys = desiredNoScheduleKeys(
      [
        { type: 'Ready', status: 'Unknown' },
        { type: 'MemoryPressure', status: 'True' },
        { type: 'DiskPressure', status: 'False' },
        { type: 'PIDPressure', status: 'True' },
        { type: 'NetworkUnavailable', status: 'True' },
      ],
      true,
    );
    assert.deepEqual(keys, [
      'node.kubernetes.io/memory-pressure',
      'node.kubernetes.io/network-unavailable',
      'node.kubernetes.io/pid-pressure',
      'node.kubernetes.io/unreachable',
      'node.kubernetes.io/unschedulable',
    ]);
    assert.deepEqual(desiredNoScheduleKeys([{ type: 'Ready', status: 'False' }], false), [
      'node.kubernetes.io/not-ready',
    ]);
  });

  it('reconcileNoSchedule removes stale owned taints, keeps foreign ones and existing timeAdded', () => {
    const taints: Taint[] = [
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: 'old' },
      { key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' },
      { key: 'example.com/mine', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
    ];
    const out = reconcileNoSchedule(taints, ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'], T0);
    assert.deepEqual(out, [
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: 'old' },
      { key: 'example.com/mine', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule', timeAdded: AT },
    ]);
  });

  it('swapTaints adds with timeAdded = now and removes by (key, effect)', () => {
    const out = swapTaints(
      [
        { ...UNREACHABLE_NO_EXECUTE, timeAdded: 'x' },
        { key: 'k', effect: 'NoSchedule' },
      ],
      [NOT_READY_NO_EXECUTE],
      [UNREACHABLE_NO_EXECUTE],
      T0,
    );
    assert.deepEqual(out, [
      { key: 'k', effect: 'NoSchedule' },
      { ...NOT_READY_NO_EXECUTE, timeAdded: AT },
    ]);
  });
});

describe('writeTaints', () => {
  it('on 409 re-reads live and recomputes, never overwriting the other writer', async () => {
    const h = harness();
    const n = h.addNode('n1', { ready: 'True' }, false);
    h.client.put('nodes', { ...h.node('n1'), spec: { taints: [{ key: 'other', effect: 'NoSchedule' }] } });
    const res = await writeTaints(h.client, n, (t) => swapTaints(t, [UNREACHABLE_NO_EXECUTE], [], T0));
    assert.equal(res.ok, true);
    assert.deepEqual(
      h.node('n1').spec.taints?.map((t) => t.key),
      ['other', UNREACHABLE_NO_EXECUTE.key],
    );
    assert.equal(h.client.callsOf('nodes', 'update').length, 2);
    assert.equal(h.client.callsOf('nodes', 'get').length, 1);
  });

  it('gives up after 5 conflicting tries and makes no call when nothing changes', async () => {
    const h = harness();
    const n = h.addNode('n1', { ready: 'True' }, false);
    h.client.failNext('nodes', 'update', new ConflictError('nodes', 'n1'), 5);
    const res = await writeTaints(h.client, n, (t) => swapTaints(t, [UNREACHABLE_NO_EXECUTE], [], T0));
    assert.equal(res.ok, false);
    assert.equal(h.client.callsOf('nodes', 'update').length, 5);
    const before = h.client.calls.length;
    assert.equal((await writeTaints(h.client, h.node('n1'), (t) => [...t])).ok, true);
    assert.equal(h.client.calls.length, before);
  });
});

describe('controller taints', () => {
  it('rate-limited NoExecute: first node at once, the next 10 s later (0.1/s, burst 1), NoSchedule mirror at once', async () => {
    const h = harness();
    for (const n of ['a', 'b', 'c', 'd']) h.addNode(n, { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 20_000, ['a', 'b', 'c', 'd']);
    // a and b renew for the last time at 20 s (seen by that pass): first pass with now > 70 s marks them.
    await runUntil(h, 70_000, ['c', 'd']);
    assert.equal(h.statusWrites(), 0);
    await runUntil(h, 75_000, ['c', 'd']);
    assert.equal(h.statusWrites(), 2);
    assert.equal(h.noExecute('a')?.key, UNREACHABLE_NO_EXECUTE.key);
    assert.equal(h.noExecute('a')?.timeAdded, new Date(T0 + 75_000).toISOString());
    assert.equal(h.noExecute('b'), undefined, 'b waits for a token');
    assert.ok(
      h.node('b').spec.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoSchedule'),
      'NoSchedule mirror is not rate-limited',
    );
    await h.clock.advance(9_900);
    await h.controller.doNoExecuteTaintingPass();
    assert.equal(h.noExecute('b'), undefined);
    await h.clock.advance(100);
    await h.controller.doNoExecuteTaintingPass();
    assert.equal(h.noExecute('b')?.timeAdded, new Date(T0 + 85_000).toISOString());
    const tainted = h.events('NodeTainted');
    assert.deepEqual(
      tainted.map((e) => e.involvedObject.name),
      ['a', 'b'],
    );
    assert.match(tainted[0]?.message ?? '', /unreachable:NoExecute.*0\.1\/s/);
    const text = await h.registry.metrics();
    assert.match(text, /shepherd_node_lifecycle_taints_added_total\{zone="z"\} 2/);
  });

  it('swaps unreachable → not-ready instantly, then removes both NoExecute and the mirror when Ready is True', async () => {
    const h = harness();
    h.addNode('ok', { ready: 'True', zone: 'z' }); // one healthy node: the zone is never FullDisruption
    h.addNode('a', { ready: 'True', zone: 'z', taints: [{ ...UNREACHABLE_NO_EXECUTE, timeAdded: AT }] });
    await h.controller.monitorNodeHealth();
    assert.equal(h.noExecute('a'), undefined, 'Ready True: removed at once');
    h.client.put('nodes', { ...h.node('a'), spec: { taints: [{ ...UNREACHABLE_NO_EXECUTE, timeAdded: AT }] } });
    await h.clock.advance(5_000);
    h.postReady('a', 'False');
    await h.controller.monitorNodeHealth();
    assert.equal(h.noExecute('a')?.key, NOT_READY_NO_EXECUTE.key);
    assert.equal(h.noExecute('a')?.timeAdded, new Date(T0 + 5_000).toISOString());
    assert.equal(h.node('a').spec.taints?.filter((t) => t.effect === 'NoExecute').length, 1);
    assert.ok(
      h.node('a').spec.taints?.some((t) => t.key === 'node.kubernetes.io/not-ready' && t.effect === 'NoSchedule'),
    );
    await h.clock.advance(5_000);
    h.postReady('a', 'True');
    await h.controller.monitorNodeHealth();
    assert.deepEqual(h.node('a').spec.taints, []);
  });

  it('unschedulable and pressure conditions mirror as NoSchedule and go away when cleared', async () => {
    const h = harness();
    h.addNode('a', {
      zone: 'z',
      unschedulable: true,
      conditions: [
        { type: 'Ready', status: 'True', lastHeartbeatTime: AT },
        { type: 'DiskPressure', status: 'True' },
      ],
    });
    await h.controller.monitorNodeHealth();
    assert.deepEqual(
      h
        .node('a')
        .spec.taints?.map((t) => `${t.key}:${t.effect}`)
        .sort(),
      ['node.kubernetes.io/disk-pressure:NoSchedule', 'node.kubernetes.io/unschedulable:NoSchedule'],
    );
    const cur = h.node('a');
    h.client.put('nodes', {
      ...cur,
      spec: { ...cur.spec, unschedulable: false },
      status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: AT }] },
    });
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.deepEqual(h.node('a').spec.taints, []);
  });

  // docs/node-lifecycle.md#d8-restarts-keep-noexecute-taints
  it('a restart keeps a matching NoExecute taint without spending a token', async () => {
    const h = harness();
    const t = { ...UNREACHABLE_NO_EXECUTE, timeAdded: AT };
    h.addNode('a', { ready: 'Unknown', zone: 'z', taints: [t] });
    h.addNode('b', { ready: 'Unknown', zone: 'z' });
    h.addNode('c', { ready: 'Unknown', zone: 'z' });
    for (const n of ['ok1', 'ok2', 'ok3']) h.addNode(n, { ready: 'True', zone: 'z' }); // 3 of 6 down: Normal
    await h.controller.monitorNodeHealth();
    assert.equal(h.controller.snapshot().zones[0]?.state, 'Normal');
    assert.deepEqual(h.noExecute('a'), t, 'kept, timeAdded unchanged');
    assert.equal(h.noExecute('b')?.timeAdded, AT, 'the one token went to b, not to a');
    assert.equal(h.noExecute('c'), undefined);
    assert.deepEqual(h.controller.snapshot().zones[0]?.queued, ['c']);
    assert.equal(h.events('NodeNotReady').length, 0, 'no transition seen by this process');
  });

  it('a NoExecute taint deleted by someone else while the node is still down is queued again', async () => {
    const h = harness();
    h.addNode('a', { ready: 'Unknown', zone: 'z' });
    h.addNode('ok', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    assert.ok(h.noExecute('a'));
    h.client.put('nodes', { ...h.node('a'), spec: { taints: [] } });
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.equal(h.noExecute('a'), undefined, 'no token yet');
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.equal(h.noExecute('a')?.timeAdded, new Date(T0 + 10_000).toISOString());
  });
});
