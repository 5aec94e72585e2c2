import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiClient } from '../../src/client/api-client.js';
import { silentLogger } from '../../src/core/logger.js';
import { TAINT_UNREACHABLE } from '../../src/core/node.js';
import type { Pod } from '../../src/core/pod.js';
import { PodMoves, SCENARIO_DEPLOYMENT } from '../../src/fleet/pod-moves.js';
import { FakeClock } from '../support/fake-clock.js';
import { pod } from '../controller/workloads/fixtures.js';

const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const ZONES: Record<string, string> = { a1: 'zone-a', a2: 'zone-a', b1: 'zone-b' };
const tolerations = [
  { key: TAINT_UNREACHABLE, operator: 'Exists' as const, effect: 'NoExecute' as const, tolerationSeconds: 5 },
];

function moves(): PodMoves {
  return new PodMoves({
    client: {} as ApiClient,
    clock: new FakeClock(T0),
    log: silentLogger,
    zoneOf: (n) => ZONES[n],
    elapsedAt: (ms) => ms - T0,
  });
}

function scenarioPod(name: string, nodeName: string, deletedAtMs?: number): Pod {
  const p = pod(name, { nodeName, phase: 'Running', tolerations, labels: { app: SCENARIO_DEPLOYMENT } });
  if (deletedAtMs === undefined) return p;
  const deletionTimestamp = new Date(deletedAtMs + 30_000).toISOString();
  return { ...p, metadata: { ...p.metadata, deletionTimestamp, deletionGracePeriodSeconds: 30 } };
}

describe('PodMoves (the rack-failure scenario pods)', () => {
  it('reports per zone the taint gaps by rate, the evictions after their taints, and the replacements', () => {
    const m = moves();
    m.onPod('ADDED', scenarioPod('p1', 'a1'));
    m.onPod('ADDED', scenarioPod('p2', 'a2'));
    m.onPod('ADDED', scenarioPod('q1', 'b1'));
    m.onPod('ADDED', pod('other', { nodeName: 'a1', phase: 'Running' }));
    assert.equal(m.running(), 3);
    m.start();
    m.noteTaint('a1', 'zone-a', T0 + 1_000, 0.5);
    m.noteTaint('a2', 'zone-a', T0 + 3_100, 0.5);
    m.onPod('MODIFIED', scenarioPod('p1', 'a1', T0 + 6_000));
    m.onPod('MODIFIED', scenarioPod('p1', 'a1', T0 + 6_000)); // counted once
    m.onPod('MODIFIED', scenarioPod('p2', 'a2', T0 + 8_400));
    m.onPod('ADDED', scenarioPod('r1', 'b1'));
    m.onPod('ADDED', scenarioPod('r2', 'b1'));
    assert.equal(m.evictions(), 2);
    assert.equal(m.evictedBetween(T0 + 7_000, T0 + 9_000), 1);
    assert.equal(m.running(), 3);
    assert.deepEqual(m.report(['zone-a', 'zone-b']), [
      'pods moved, per zone:',
      '  zone-a: 2 taint(s); gaps at 0.5/s (one token 2.00s) 1, min 2.10s median 2.10s',
      "  zone-a: 2 pod(s) evicted from 2 node(s), first +6.0s, last +8.4s; deleted after their node's taint: " +
        'median 5.00s, max 5.30s (toleration 5s; over it: max 0.30s)',
      '  zone-b: 0 taint(s)',
      '  zone-b: no pod evicted',
      '  replacements placed: zone-b 2',
    ]);
  });

  it('counts nothing before the story starts', () => {
    const m = moves();
    m.noteTaint('a1', 'zone-a', T0, 0.1);
    m.onPod('ADDED', scenarioPod('p1', 'a1', T0 + 1_000));
    assert.equal(m.evictions(), 0);
    assert.deepEqual(m.report(['zone-a']).slice(1), [
      '  zone-a: 0 taint(s)',
      '  zone-a: no pod evicted',
      '  replacements placed: none',
    ]);
  });
});
