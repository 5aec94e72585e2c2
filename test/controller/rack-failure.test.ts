import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { harness, type Harness } from './node-lifecycle-harness.js';

/**
 * The rack-failure story (docs/node-lifecycle.md#rack-failure), on the controller's own loop (run(): a pass every 5 s,
 * the tainter every 100 ms in between) and a fake clock. Agents renew their leases every 10 s; "down" is an agent that
 * stops renewing, "up" one that posts Ready=True and renews again. Every time below is exact, in seconds since start.
 *
 * Zone us-east-1a: node-01 … node-60; zone us-east-1b: nodeb-01 … nodeb-60. Default rates (0.1/s, 0.01/s).
 */
const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const pad = (i: number): string => String(i).padStart(2, '0');
const A = Array.from({ length: 60 }, (_, i) => `node-${pad(i + 1)}`);
const B = Array.from({ length: 60 }, (_, i) => `nodeb-${pad(i + 1)}`);
const A1 = A.slice(16, 22); // node-17 … node-22: the first 6 to fail
const A2 = A.slice(22, 52); // node-23 … node-52: 30 more, renewing on the odd 5 s
const A3 = A.filter((n) => !A1.includes(n) && !A2.includes(n)); // the 24 that survive longest
const B_DEAD = B.slice(56); // nodeb-57 … nodeb-60 stay down at the end

interface Agents {
  even: Set<string>; // renew at t ≡ 0 (mod 10)
  odd: Set<string>; // renew at t ≡ 5 (mod 10)
}

async function driveTo(h: Harness, agents: Agents, endSeconds: number): Promise<void> {
  while (h.clock.monotonic() < endSeconds * 1000) {
    const now = h.clock.monotonic();
    await h.clock.advance(Math.min(5_000 - (now % 5_000), endSeconds * 1000 - now));
    const t = h.clock.monotonic() / 1000;
    if (t % 5 !== 0) continue;
    for (const n of t % 10 === 0 ? agents.even : agents.odd) h.renew(n);
  }
}

/** Every NoExecute taint the controller added, as [node, seconds], from its NodeTainted events. */
function taints(h: Harness): Array<[string, number]> {
  return (h.events('NodeTainted') as unknown as Array<{ involvedObject: { name: string }; firstTimestamp: string }>)
    .map((e): [string, number] => [e.involvedObject.name, (Date.parse(e.firstTimestamp) - T0) / 1000])
    .sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1));
}
const taintsIn = (h: Harness, zoneNodes: string[], from: number): Array<[string, number]> =>
  taints(h).filter(([n, t]) => zoneNodes.includes(n) && t > from);

function zone(h: Harness, name: string): { state: string; evictionRate: number; notReady: number; queued: string[] } {
  const z = h.controller.snapshot().zones.find((x) => x.zone === name);
  assert.ok(z, `zone ${name} is known`);
  return z;
}
const noExecuteCount = (h: Harness): number => [...A, ...B].filter((n) => h.noExecute(n) !== undefined).length;

describe('rack failure', () => {
  it('two zones of 60: Normal, paced taints, PartialDisruption, master disruption, recovery', async () => {
    const h = harness();
    for (const n of A) h.addNode(n, { ready: 'True', zone: 'us-east-1a' });
    for (const n of B) h.addNode(n, { ready: 'True', zone: 'us-east-1b' });
    const agents: Agents = { even: new Set([...A1, ...A3, ...B]), odd: new Set(A2) };
    const ac = new AbortController();
    const loop = h.controller.run(ac.signal);

    // (1) node-17 … node-22 renew for the last time at 20 s, seen by the pass at 25 s: marked at 80 s (> 75).
    await driveTo(h, agents, 20);
    for (const n of A1) agents.even.delete(n);
    await driveTo(h, agents, 75);
    assert.equal(h.statusWrites(), 0);
    for (const n of A2) agents.odd.delete(n); // node-23 … node-52: last renewal 75 s, seen at 80 s
    await driveTo(h, agents, 80);
    assert.equal(h.statusWrites(), 6);
    assert.deepEqual([zone(h, 'us-east-1a').state, zone(h, 'us-east-1a').notReady], ['Normal', 6]);
    assert.equal(zone(h, 'us-east-1b').state, 'Normal');

    // (2) node-17 first, at once (full bucket); node-18 exactly 10 s after it; then one every 10 s.
    await driveTo(h, agents, 130);
    assert.deepEqual(taintsIn(h, A, 0), [
      ['node-17', 80],
      ['node-18', 90],
      ['node-19', 100],
      ['node-20', 110],
      ['node-21', 120],
      ['node-22', 130],
    ]);
    for (const n of A1) assert.equal(h.noExecute(n)?.key, 'node.kubernetes.io/unreachable');

    // (3) node-23 … node-52 are marked at 135 s: 36 of 60 down → PartialDisruption at 0.01/s (60 > 50).
    // The old bucket was spent at 130 s, so the new one starts drained: next taint exactly 100 s later.
    await driveTo(h, agents, 135);
    assert.deepEqual(
      [zone(h, 'us-east-1a').state, zone(h, 'us-east-1a').evictionRate, zone(h, 'us-east-1a').notReady],
      ['PartialDisruption', 0.01, 36],
    );
    assert.equal(zone(h, 'us-east-1b').state, 'Normal');
    await driveTo(h, agents, 234.9);
    assert.deepEqual(taintsIn(h, A, 130), []);
    await driveTo(h, agents, 240);
    assert.deepEqual(taintsIn(h, A, 130), [['node-23', 235]]);

    // (4) everyone else renews for the last time at 240 s → marked at 300 s: all 120 down, master disruption.
    for (const n of [...A3, ...B]) agents.even.delete(n);
    await driveTo(h, agents, 295);
    assert.equal(h.controller.snapshot().masterDisruption, false);
    await driveTo(h, agents, 300);
    const snap = h.controller.snapshot();
    assert.equal(snap.masterDisruption, true);
    assert.deepEqual(
      snap.zones.map((z) => [z.zone, z.state, z.evictionRate]),
      [
        ['us-east-1a', 'FullDisruption', 0],
        ['us-east-1b', 'FullDisruption', 0],
      ],
    );
    assert.equal(noExecuteCount(h), 0, 'every NoExecute taint lifted (node-17 … node-23)');
    assert.ok(zone(h, 'us-east-1a').queued.includes('node-17'), 'node-17 is back in the queue');
    await driveTo(h, agents, 400);
    assert.equal(noExecuteCount(h), 0);
    assert.deepEqual(
      taints(h).filter(([, t]) => t > 240),
      [],
      'no zone taints while every zone is down',
    );

    // (5) at 400 s the agents of 1b (but 4) and the 24 last of 1a come back: seen by the pass at 405 s.
    for (const n of [...A3, ...B.filter((x) => !B_DEAD.includes(x))]) {
      h.postReady(n, 'True');
      h.renew(n);
      agents.even.add(n);
    }
    await driveTo(h, agents, 405);
    assert.equal(h.controller.snapshot().masterDisruption, false);
    assert.deepEqual(
      [zone(h, 'us-east-1b').state, zone(h, 'us-east-1b').notReady, zone(h, 'us-east-1b').evictionRate],
      ['Normal', 4, 0.1],
    );
    assert.deepEqual(
      [zone(h, 'us-east-1a').state, zone(h, 'us-east-1a').notReady, zone(h, 'us-east-1a').evictionRate],
      ['PartialDisruption', 36, 0.01],
    );
    await driveTo(h, agents, 520);
    // Limiters restored drained: 1b's first taint exactly 10 s after the exit, 1a's exactly 100 s after.
    assert.deepEqual(taintsIn(h, B, 400).slice(0, 2), [
      ['nodeb-57', 415],
      ['nodeb-58', 425],
    ]);
    assert.deepEqual(taintsIn(h, A, 400), [['node-17', 505]]);
    assert.equal(h.statusWrites('node-01'), 1, 'revived nodes are not marked again (fresh grace, renewing)');
    ac.abort();
    await h.clock.advance(100);
    await loop;
  });
});
