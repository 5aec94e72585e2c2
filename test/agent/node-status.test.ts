import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  computeConditions,
  desiredStatus,
  nextReportDelay,
  shouldPost,
  statusChanged,
  type HostReadings,
} from '../../src/agent/node-status.js';
import type { NodeCondition, NodeStatus } from '../../src/core/node.js';

const T0 = '2026-11-29T12:00:00.000Z';
const T1 = '2026-11-29T12:00:10.000Z';
const thresholds = { memoryPressureThreshold: 0.05, diskPressureThreshold: 0.1 };
const healthy: HostReadings = {
  memory: { availableBytes: 50, totalBytes: 100 },
  disk: { freeBytes: 50, totalBytes: 100 },
};
const byType = (cs: NodeCondition[], type: string): NodeCondition | undefined => cs.find((c) => c.type === type);

describe('computeConditions', () => {
  const table: { name: string; readings: HostReadings; memory: string; disk: string }[] = [
    { name: 'healthy host', readings: healthy, memory: 'False', disk: 'False' },
    {
      name: 'memory below threshold',
      readings: { ...healthy, memory: { availableBytes: 4, totalBytes: 100 } },
      memory: 'True',
      disk: 'False',
    },
    {
      name: 'memory exactly at threshold',
      readings: { ...healthy, memory: { availableBytes: 5, totalBytes: 100 } },
      memory: 'False',
      disk: 'False',
    },
    {
      name: 'disk below threshold',
      readings: { ...healthy, disk: { freeBytes: 9, totalBytes: 100 } },
      memory: 'False',
      disk: 'True',
    },
    { name: 'disk not measurable', readings: { ...healthy, disk: undefined }, memory: 'False', disk: 'Unknown' },
  ];
  for (const row of table) {
    it(row.name, () => {
      const cs = computeConditions(undefined, row.readings, thresholds, T0);
      assert.deepEqual(byType(cs, 'Ready'), {
        type: 'Ready',
        status: 'True',
        reason: 'AgentReady',
        message: 'shepherd agent is posting ready status',
        lastHeartbeatTime: T0,
        lastTransitionTime: T0,
      });
      assert.equal(byType(cs, 'MemoryPressure')?.status, row.memory);
      assert.equal(byType(cs, 'DiskPressure')?.status, row.disk);
    });
  }

  it('keeps lastTransitionTime unless the status changed, and always moves lastHeartbeatTime', () => {
    const before = computeConditions(undefined, healthy, thresholds, T0);
    const after = computeConditions(
      before,
      { ...healthy, memory: { availableBytes: 1, totalBytes: 100 } },
      thresholds,
      T1,
    );
    assert.equal(byType(after, 'Ready')?.lastTransitionTime, T0);
    assert.equal(byType(after, 'Ready')?.lastHeartbeatTime, T1);
    assert.equal(byType(after, 'MemoryPressure')?.lastTransitionTime, T1);
    assert.equal(byType(after, 'DiskPressure')?.lastTransitionTime, T0);
  });

  it('treats Ready=Unknown written by the controller as a transition', () => {
    const unknown: NodeCondition[] = [
      { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', lastHeartbeatTime: T0, lastTransitionTime: T0 },
    ];
    const cs = computeConditions(unknown, healthy, thresholds, T1);
    assert.equal(byType(cs, 'Ready')?.lastTransitionTime, T1);
  });
});

describe('statusChanged / desiredStatus', () => {
  const info = { hostname: 'h', os: 'linux', arch: 'amd64', addresses: [{ type: 'Hostname', address: 'h' }] };
  const at = (iso: string, prev?: NodeStatus): NodeStatus =>
    desiredStatus(prev ?? {}, computeConditions(prev?.conditions, healthy, thresholds, iso), info, '1.0');

  it('ignores a new lastHeartbeatTime', () => {
    const a = at(T0);
    assert.equal(statusChanged(a, at(T1, a)), false);
  });

  it('sees a condition, address or version change', () => {
    const a = at(T0);
    const pressure = desiredStatus(
      a,
      computeConditions(a.conditions, { ...healthy, disk: { freeBytes: 1, totalBytes: 100 } }, thresholds, T1),
      info,
      '1.0',
    );
    assert.equal(statusChanged(a, pressure), true);
    assert.equal(statusChanged(a, { ...a, addresses: [] }), true);
    assert.equal(statusChanged(a, desiredStatus(a, a.conditions ?? [], info, '1.1')), true);
  });

  it('reports capacity, allocatable and podCount, and sees a change in any of them', () => {
    const resources = { cpu: '2', memory: '1024Mi', pods: '110' };
    const a = desiredStatus({}, [], info, '1.0', { resources, podCount: 3 });
    assert.deepEqual([a.capacity, a.allocatable, a.podCount], [resources, resources, 3]);
    assert.equal(statusChanged(a, desiredStatus(a, [], info, '1.0', { resources, podCount: 3 })), false);
    assert.equal(statusChanged(a, desiredStatus(a, [], info, '1.0', { resources, podCount: 4 })), true);
    assert.equal(
      statusChanged(a, desiredStatus(a, [], info, '1.0', { resources: { ...resources, pods: '20' } })),
      true,
    );
    assert.equal(desiredStatus(a, [], info, '1.0').podCount, 3, 'without a report the stored count stays');
  });

  it('keeps condition types other writers own', () => {
    const stored: NodeStatus = { conditions: [{ type: 'NetworkUnavailable', status: 'False' }], podCount: 3 };
    const next = at(T0, stored);
    assert.deepEqual(
      next.conditions?.map((c) => c.type),
      ['Ready', 'MemoryPressure', 'DiskPressure', 'NetworkUnavailable'],
    );
    assert.equal(next.podCount, 3);
  });
});

describe('report cadence', () => {
  it('posts on change, first, or after reportFrequency + delay only', () => {
    const state = { lastReportAt: 1000, delayAfterChangeMs: -500 };
    assert.equal(shouldPost({ lastReportAt: undefined, delayAfterChangeMs: 0 }, false, 0, 10_000), true);
    assert.equal(shouldPost(state, true, 1001, 10_000), true);
    assert.equal(shouldPost(state, false, 10_499, 10_000), false);
    assert.equal(shouldPost(state, false, 10_500, 10_000), true);
  });

  it('jitters ±50 % after a change or start, and not after an unchanged post', () => {
    assert.equal(nextReportDelay(true, 300_000, 0), -150_000);
    assert.equal(nextReportDelay(true, 300_000, 0.999), 149_700);
    assert.equal(nextReportDelay(false, 300_000, 0.999), 0);
  });
});
