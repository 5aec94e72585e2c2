import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_WITNESS_WEIGHING,
  weighWitnesses,
  type WitnessStanding,
} from '../../src/controller/node-lifecycle/witness-weighing.js';

const standing: Record<string, WitnessStanding> = {
  b1: { zone: 'b', alive: true, lastHeartbeat: 100 },
  b2: { zone: 'b', alive: true, lastHeartbeat: 100 },
  c1: { zone: 'c', alive: true, lastHeartbeat: 100 },
  silent: { zone: 'd', alive: false, lastHeartbeat: 1 },
};
const weigh = (reports: Array<[string, boolean]>, config = DEFAULT_WITNESS_WEIGHING) =>
  weighWitnesses(
    'x',
    reports.map(([witness, reachable]) => ({ witness, reachable })),
    (w) => standing[w],
    config,
  );

describe('weighWitnesses (pure)', () => {
  it('a quorum of live witnesses in enough zones, and nothing less', () => {
    const cases: Array<[Array<[string, boolean]>, boolean, string]> = [
      [
        [
          ['b1', true],
          ['c1', true],
        ],
        true,
        'two zones',
      ],
      [
        [
          ['b1', true],
          ['b2', true],
        ],
        false,
        'one zone',
      ],
      [[['b1', true]], false, 'one witness'],
      [
        [
          ['b1', true],
          ['c1', false],
        ],
        false,
        'one lost it',
      ],
      [
        [
          ['b1', true],
          ['silent', true],
        ],
        false,
        'a silent witness does not count',
      ],
      [
        [
          ['b1', true],
          ['unknown-node', true],
        ],
        false,
        'a witness the controller does not know',
      ],
      [
        [
          ['b1', true],
          ['x', true],
        ],
        false,
        'the node about itself',
      ],
      [[], false, 'no reports'],
    ];
    for (const [reports, partitioned, why] of cases) assert.equal(weigh(reports).partitioned, partitioned, why);
  });

  it('lists every vote in name order with whether it counted; quorum 0 weighs nothing', () => {
    const w = weigh([
      ['silent', true],
      ['c1', true],
      ['b1', true],
    ]);
    assert.deepEqual(
      w.votes.map((v) => [v.witness, v.counted]),
      [
        ['b1', true],
        ['c1', true],
        ['silent', false],
      ],
    );
    assert.equal(w.counted, 2);
    assert.equal(w.zones, 2);
    assert.equal(
      weigh(
        [
          ['b1', true],
          ['c1', true],
        ],
        { ...DEFAULT_WITNESS_WEIGHING, quorum: 0 },
      ).partitioned,
      false,
    );
  });
});
