import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requirementsOf } from '../../../src/controller/scheduler/filters.js';
import { nodeInfoOf } from '../../../src/controller/scheduler/node-info.js';
import { numFeasibleNodesToFind, zoneInterleaved } from '../../../src/controller/scheduler/node-order.js';
import { podBackoffMs } from '../../../src/controller/scheduler/pod-backoff.js';
import fc from 'fast-check';
import { BestNode, compareScores, emptyScore, scoreNode } from '../../../src/controller/scheduler/scores.js';
import { node, pod, taint, type NodeInput } from '../workloads/fixtures.js';

const OWNER = { name: 'web', uid: 'uid-web' };

interface Candidate {
  name: string;
  node?: NodeInput;
  pods?: number;
  ownerPods?: number;
}

/** The best of the candidates for an owned pod, given the owner's pods per zone. */
function best(candidates: Candidate[], ownerZones: Record<string, number> = {}): string {
  const req = requirementsOf(pod('p', { owner: OWNER }));
  const zones = new Map(Object.entries(ownerZones));
  let winner: { name: string; score: ReturnType<typeof emptyScore> } | undefined;
  for (const c of candidates) {
    const owners = new Map(c.ownerPods ? [[OWNER.uid, c.ownerPods]] : []);
    const info = nodeInfoOf(node(c.name, c.node), { pods: c.pods ?? 0, owners });
    const score = scoreNode(req, info, zones, emptyScore());
    if (winner === undefined || compareScores(score, winner.score) < 0) winner = { name: c.name, score };
  }
  return winner?.name ?? '';
}

describe('scheduler scores', () => {
  it('spread across zones comes before spread across nodes and before load', () => {
    assert.equal(
      best(
        [
          { name: 'a1', node: { zone: 'a' }, pods: 0, ownerPods: 0 },
          { name: 'b1', node: { zone: 'b' }, pods: 50, ownerPods: 1 },
        ],
        { a: 3, b: 1 },
      ),
      'b1',
    );
  });

  it("within a zone, the node with fewer of the owner's pods wins over a less loaded one", () => {
    assert.equal(
      best([
        { name: 'a1', node: { zone: 'a' }, pods: 1, ownerPods: 1 },
        { name: 'a2', node: { zone: 'a' }, pods: 40, ownerPods: 0 },
      ]),
      'a2',
    );
  });

  it('then the least loaded, as a fraction of allocatable.pods', () => {
    assert.equal(
      best([
        { name: 'small', node: { maxPods: 10 }, pods: 5 },
        { name: 'big', node: { maxPods: 110 }, pods: 20 },
      ]),
      'big',
    );
  });

  it('a Suspect node loses to any healthy one, however spread or loaded', () => {
    assert.equal(
      best(
        [
          { name: 'suspect', node: { zone: 'b', suspect: true }, pods: 0 },
          { name: 'busy', node: { zone: 'a' }, pods: 100, ownerPods: 5 },
        ],
        { a: 5 },
      ),
      'busy',
    );
  });

  it('an untolerated PreferNoSchedule taint lowers a node below one without', () => {
    assert.equal(
      best([
        { name: 'soft', node: { taints: [taint('soft', 'PreferNoSchedule')] }, pods: 0 },
        { name: 'plain', pods: 30 },
      ]),
      'plain',
    );
  });

  it('ties keep the node met first', () => {
    assert.equal(best([{ name: 'x' }, { name: 'y' }]), 'x');
  });
});

describe("BestNode (the search's fast path)", () => {
  it('picks the very node a full scoring with compareScores picks', () => {
    const candidate = fc.record({
      zone: fc.constantFrom('a', 'b', 'c'),
      suspect: fc.boolean(),
      soft: fc.boolean(),
      pods: fc.integer({ min: 0, max: 20 }),
      ownerPods: fc.integer({ min: 0, max: 3 }),
      maxPods: fc.constantFrom(10, 20, 110),
    });
    fc.assert(
      fc.property(
        fc.array(candidate, { minLength: 1, maxLength: 30 }),
        fc.record({ a: fc.nat(5), b: fc.nat(5), c: fc.nat(5) }),
        fc.boolean(),
        (cands, zoneCounts, owned) => {
          const req = requirementsOf(pod('p', owned ? { owner: OWNER } : {}));
          const zones = new Map(Object.entries(zoneCounts));
          const infos = cands.map((c, i) =>
            nodeInfoOf(
              node(`n${i}`, {
                zone: c.zone,
                suspect: c.suspect,
                maxPods: c.maxPods,
                ...(c.soft ? { taints: [taint('soft', 'PreferNoSchedule')] } : {}),
              }),
              { pods: c.pods, owners: new Map(c.ownerPods > 0 ? [[OWNER.uid, c.ownerPods]] : []) },
            ),
          );
          const fast = new BestNode();
          for (const info of infos) fast.offer(req, info, zones);
          let slow = infos[0];
          let slowScore = scoreNode(req, infos[0] as (typeof infos)[0], zones, emptyScore());
          for (const info of infos.slice(1)) {
            const score = scoreNode(req, info, zones, emptyScore());
            if (compareScores(score, slowScore) < 0) [slow, slowScore] = [info, score];
          }
          return fast.info === slow;
        },
      ),
      { seed: 4242, numRuns: 300 },
    );
  });
});

describe('node sampling (kube-scheduler numFeasibleNodesToFind)', () => {
  const rows: Array<[number, number, number]> = [
    [0, 0, 0],
    [99, 0, 99],
    [100, 0, 100],
    [500, 0, 230],
    [1_000, 0, 420],
    [5_000, 0, 500],
    [10_000, 0, 500],
    [100_000, 0, 5_000],
    [1_000, 10, 100],
    [10_000, 30, 3_000],
    [10_000, 100, 10_000],
  ];
  for (const [n, pct, want] of rows) {
    it(`${n} nodes at ${pct === 0 ? 'the adaptive percentage' : `${pct} %`} → ${want}`, () => {
      assert.equal(numFeasibleNodesToFind(n, pct), want);
    });
  }

  it('walks zones in turn, names in order within a zone', () => {
    const nodes = ['b2', 'a1', 'c1', 'a3', 'b1', 'a2'].map((name) => ({ name, zone: name[0] as string }));
    assert.deepEqual(
      zoneInterleaved(nodes).map((n) => n.name),
      ['a1', 'b1', 'c1', 'a2', 'b2', 'a3'],
    );
  });
});

describe('pod backoff (kube-scheduler podInitialBackoff / podMaxBackoff)', () => {
  it('doubles from 1 s and stops at 10 s', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 40].map((a) => podBackoffMs(a)),
      [0, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000],
    );
  });
});
