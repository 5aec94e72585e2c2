import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ConditionStatus, NodeCondition } from '../../src/core/node.js';
import { DEFAULT_UNHEALTHY_ZONE_THRESHOLD } from '../../src/controller/node-lifecycle/zone-state.js';
import { computeZoneState } from '../support/zone-tallies.js';

function ready(status: ConditionStatus): NodeCondition {
  return { type: 'Ready', status, reason: 'KubeletReady', lastHeartbeatTime: '2026-11-29T12:00:00.000Z' };
}

/** `readyCount` True conditions followed by `notReadyCount` not-True ones, cycling False / Unknown / missing. */
function zone(readyCount: number, notReadyCount: number): Array<NodeCondition | undefined> {
  const notReadyKinds = [ready('False'), ready('Unknown'), undefined];
  return [
    ...Array.from({ length: readyCount }, () => ready('True')),
    ...Array.from({ length: notReadyCount }, (_, i) => notReadyKinds[i % notReadyKinds.length]),
  ];
}

describe('computeZoneState', () => {
  // docs/node-lifecycle.md#zone-states, threshold 0.55.
  const table: Array<[number, number, string]> = [
    [0, 1, 'FullDisruption'],
    [0, 3, 'FullDisruption'],
    [0, 100, 'FullDisruption'],
    [1, 2, 'Normal'], // not-Ready count not > 2
    [1, 3, 'PartialDisruption'], // 0.75
    [2, 3, 'PartialDisruption'], // 0.60
    [3, 3, 'Normal'], // 0.50
    [9, 11, 'PartialDisruption'], // 0.55 >= 0.55 in float32
    [10, 10, 'Normal'], // 0.50
    [5, 2, 'Normal'],
    [1, 0, 'Normal'],
    [50, 0, 'Normal'],
  ];
  for (const [r, n, want] of table) {
    it(`${r} ready / ${n} not ready → ${want}`, () => {
      assert.deepEqual(computeZoneState(zone(r, n), DEFAULT_UNHEALTHY_ZONE_THRESHOLD), {
        state: want,
        ready: r,
        notReady: n,
      });
    });
  }

  it('counts a node without a Ready condition as not ready', () => {
    assert.deepEqual(computeZoneState([undefined], 0.55), { state: 'FullDisruption', ready: 0, notReady: 1 });
    assert.deepEqual(computeZoneState([ready('True'), undefined, undefined, undefined], 0.55), {
      state: 'PartialDisruption',
      ready: 1,
      notReady: 3,
    });
  });

  it('counts False and Unknown alike as not ready', () => {
    const falses = [ready('True'), ready('False'), ready('False'), ready('False')];
    const unknowns = [ready('True'), ready('Unknown'), ready('Unknown'), ready('Unknown')];
    assert.equal(computeZoneState(falses, 0.55).state, 'PartialDisruption');
    assert.equal(computeZoneState(unknowns, 0.55).state, 'PartialDisruption');
  });

  it('an empty zone is Normal (upstream never asks)', () => {
    assert.deepEqual(computeZoneState([], 0.55), { state: 'Normal', ready: 0, notReady: 0 });
  });

  it('honours a threshold other than 0.55', () => {
    // 3 of 10 not ready: 0.3.
    assert.equal(computeZoneState(zone(7, 3), 0.3).state, 'PartialDisruption');
    assert.equal(computeZoneState(zone(7, 3), 0.31).state, 'Normal');
    // 4 of 5 not ready: 0.8 is below a 0.9 threshold.
    assert.equal(computeZoneState(zone(1, 4), 0.9).state, 'Normal');
    // Threshold 0: any 3 not-Ready nodes suffice, but never 2.
    assert.equal(computeZoneState(zone(100, 3), 0).state, 'PartialDisruption');
    assert.equal(computeZoneState(zone(100, 2), 0).state, 'Normal');
    // Threshold above 1 can never be met; Full still applies.
    assert.equal(computeZoneState(zone(1, 99), 1.01).state, 'Normal');
    assert.equal(computeZoneState(zone(0, 99), 1.01).state, 'FullDisruption');
  });

  it('compares in float32 like upstream: 3/5 meets a threshold of 0.6000000001', () => {
    // In float64, 0.6 < 0.6000000001 (Normal); in float32 both round to the same value (Partial, as upstream).
    assert.ok(3 / 5 < 0.6000000001);
    assert.equal(computeZoneState(zone(2, 3), 0.6000000001).state, 'PartialDisruption');
    // A threshold far enough above to differ in float32 too.
    assert.equal(computeZoneState(zone(2, 3), 0.6001).state, 'Normal');
  });
});
