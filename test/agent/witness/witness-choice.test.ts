import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { witnessesOf, witnessTargets, type WitnessPeer } from '../../../src/agent/witness/witness-choice.js';

const fleet = (zones: Record<string, number>): WitnessPeer[] =>
  Object.entries(zones).flatMap(([zone, n]) =>
    Array.from({ length: n }, (_, i) => ({ name: `${zone}-n${i}`, zone, address: `10.0.0.${i}:7000` })),
  );

describe('who witnesses whom', () => {
  it('every node has exactly `count` witnesses, all from other zones when there are enough', () => {
    const peers = fleet({ a: 7, b: 5, c: 9 });
    for (const p of peers) {
      const w = witnessesOf(p, peers, 3);
      assert.equal(new Set(w).size, 3, p.name);
      assert.ok(!w.includes(p.name));
      for (const name of w) assert.notEqual(peers.find((q) => q.name === name)?.zone, p.zone, `${p.name} ← ${name}`);
    }
  });

  it('each agent probes exactly the nodes that name it: the relation is the same on every agent', () => {
    const peers = fleet({ a: 6, b: 6, c: 3 });
    let edges = 0;
    for (const self of peers) {
      const targets = witnessTargets(self.name, peers, 3);
      edges += targets.length;
      for (const t of targets) assert.ok(witnessesOf(t, peers, 3).includes(self.name));
    }
    assert.equal(edges, peers.length * 3);
    // Listed in another order, the answer is the same.
    const shuffled = [...peers].reverse();
    for (const self of peers)
      assert.deepEqual(witnessTargets(self.name, shuffled, 3), witnessTargets(self.name, peers, 3));
  });

  it('falls back to its own zone when too few nodes live elsewhere, and to fewer when the fleet is small', () => {
    const one = fleet({ a: 5 });
    for (const p of one) assert.equal(witnessesOf(p, one, 3).length, 3);
    const mixed = fleet({ a: 4, b: 1 });
    const w = witnessesOf({ name: 'a-n0', zone: 'a', address: '' }, mixed, 3);
    assert.equal(w[0], 'b-n0', 'the other zone first');
    assert.equal(w.length, 3);
    const tiny = fleet({ a: 1, b: 1 });
    assert.deepEqual(witnessesOf(tiny[0] as WitnessPeer, tiny, 3), ['b-n0']);
    assert.deepEqual(witnessTargets('a-n0', tiny, 0), []);
  });
});
