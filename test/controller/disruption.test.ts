import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeCondition } from '../../src/core/node.js';
import { defaultNodeLifecycleConfig } from '../../src/controller/node-lifecycle/config.js';
import { ZoneBook } from '../../src/controller/node-lifecycle/disruption.js';
import { ZoneQueues } from '../../src/controller/node-lifecycle/zone-queues.js';
import { EXCLUDE_DISRUPTION_LABEL } from '../../src/core/node.js';
import { FakeClock } from '../support/fake-clock.js';
import { handleDisruption } from '../support/zone-tallies.js';
import { harness } from './node-lifecycle-harness.js';

const R: NodeCondition = { type: 'Ready', status: 'True' };
const U: NodeCondition = { type: 'Ready', status: 'Unknown' };
const F: NodeCondition = { type: 'Ready', status: 'False' };
const zone = (ready: number, notReady: number): Array<NodeCondition | undefined> => [
  ...Array<NodeCondition>(ready).fill(R),
  ...Array<NodeCondition>(notReady).fill(U),
];

function book(): { zb: ZoneBook; queues: ZoneQueues; clock: FakeClock } {
  const clock = new FakeClock();
  const queues = new ZoneQueues(defaultNodeLifecycleConfig, clock);
  return { zb: new ZoneBook(defaultNodeLifecycleConfig, queues), queues, clock };
}

// docs/node-lifecycle.md#zone-states
describe('zone table and rates', () => {
  const table: Array<[number, number, string, number]> = [
    [0, 1, 'FullDisruption', 0.1],
    [1, 2, 'Normal', 0.1],
    [1, 3, 'PartialDisruption', 0],
    [2, 3, 'PartialDisruption', 0],
    [3, 3, 'Normal', 0.1],
    [9, 11, 'PartialDisruption', 0],
    [5, 2, 'Normal', 0.1],
    [20, 31, 'PartialDisruption', 0.01], // 51 nodes > 50: secondary rate
    [25, 25, 'Normal', 0.1],
  ];
  for (const [ready, notReady, state, rate] of table) {
    it(`${ready} ready / ${notReady} not ready → ${state} at ${rate}/s`, () => {
      const { zb, queues } = book();
      queues.queueFor('a');
      // A second, healthy zone keeps a lone Full zone out of master-disruption mode.
      queues.queueFor('b');
      const out = handleDisruption(
        zb,
        new Map([
          ['a', zone(ready, notReady)],
          ['b', zone(3, 0)],
        ]),
      );
      assert.equal(zb.state('a'), state);
      assert.equal(queues.rate('a'), rate);
      assert.equal(out.transition, 'none');
    });
  }

  it('a nil Ready counts as not ready; False and Unknown alike', () => {
    const { zb } = book();
    handleDisruption(
      zb,
      new Map([
        ['a', [R, undefined, F, U]],
        ['b', zone(1, 0)],
      ]),
    );
    assert.equal(zb.state('a'), 'PartialDisruption');
  });
});

describe('master-disruption mode', () => {
  it('enters when every zone is Full (rates 0) and leaves as soon as one is not, with drained limiters', async () => {
    const { zb, queues, clock } = book();
    queues.queueFor('a');
    queues.queueFor('b');
    handleDisruption(
      zb,
      new Map([
        ['a', zone(3, 0)],
        ['b', zone(3, 0)],
      ]),
    );
    const enter = handleDisruption(
      zb,
      new Map([
        ['a', zone(0, 3)],
        ['b', zone(0, 3)],
      ]),
    );
    assert.equal(enter.transition, 'enter');
    assert.equal(zb.inMasterDisruption(), true);
    assert.deepEqual([queues.rate('a'), queues.rate('b')], [0, 0]);
    assert.equal(
      handleDisruption(
        zb,
        new Map([
          ['a', zone(0, 3)],
          ['b', zone(0, 3)],
        ]),
      ).transition,
      'none',
    );
    await clock.advance(60_000);
    const exit = handleDisruption(
      zb,
      new Map([
        ['a', zone(3, 0)],
        ['b', zone(0, 3)],
      ]),
    );
    assert.equal(exit.transition, 'exit');
    assert.deepEqual([zb.state('a'), zb.state('b')], ['Normal', 'FullDisruption']);
    assert.deepEqual([queues.rate('a'), queues.rate('b')], [0.1, 0.1]);
    queues.ensurePending('b', 'n1', 'u1');
    let tainted = 0;
    const fn = async (): Promise<{ done: true }> => {
      tainted++;
      return { done: true };
    };
    const [, qb] = queues.sorted().find(([z]) => z === 'b') ?? [];
    await qb?.queue.try(fn);
    assert.equal(tainted, 0, 'drained: no token right after the exit');
    await clock.advance(10_000);
    await qb?.queue.try(fn);
    assert.equal(tainted, 1, 'first taint exactly 1/qps after the exit');
  });

  it('a zone first seen while in the mode ends it when it is not Full', () => {
    const { zb, queues } = book();
    queues.queueFor('a');
    handleDisruption(zb, new Map([['a', zone(0, 3)]]));
    assert.equal(zb.inMasterDisruption(), true);
    queues.queueFor('new');
    assert.equal(queues.rate('new'), 0, 'a queue created in the mode does not taint');
    const out = handleDisruption(
      zb,
      new Map([
        ['a', zone(0, 3)],
        ['new', zone(2, 0)],
      ]),
    );
    assert.equal(out.transition, 'exit');
    assert.equal(zb.inMasterDisruption(), false);
    assert.deepEqual(out.initial, ['new']);
  });

  it('a zone first seen Full while in the mode stays at rate 0', () => {
    const { zb, queues } = book();
    queues.queueFor('a');
    handleDisruption(zb, new Map([['a', zone(0, 3)]]));
    queues.queueFor('b');
    const out = handleDisruption(
      zb,
      new Map([
        ['a', zone(0, 3)],
        ['b', zone(0, 2)],
      ]),
    );
    assert.equal(out.transition, 'none');
    assert.equal(zb.state('b'), 'FullDisruption');
    assert.equal(queues.rate('b'), 0);
  });

  it('zones without counted nodes are removed in sorted order; their queues stay while nodes live there', () => {
    const { zb, queues } = book();
    for (const z of ['c', 'a', 'b']) queues.queueFor(z);
    handleDisruption(
      zb,
      new Map([
        ['a', zone(1, 0)],
        ['b', zone(1, 0)],
        ['c', zone(1, 0)],
      ]),
    );
    const out = handleDisruption(zb, new Map([['b', zone(1, 0)]]));
    assert.deepEqual(out.removed, ['a', 'c']);
    assert.deepEqual(
      zb.states().map(([z]) => z),
      ['b'],
    );
    assert.deepEqual(
      queues.sorted().map(([z]) => z),
      ['a', 'b', 'c'],
    );
    queues.retain(new Set(['b']));
    assert.deepEqual(
      queues.sorted().map(([z]) => z),
      ['b'],
    );
  });
});

describe('controller: disruption end to end', () => {
  it('nodes with the exclusion label are not counted in their zone', async () => {
    const h = harness();
    h.addNode('a', { ready: 'True', zone: 'z' });
    for (const n of ['x1', 'x2', 'x3'])
      h.addNode(n, { ready: 'Unknown', zone: 'z', labels: { [EXCLUDE_DISRUPTION_LABEL]: '' } });
    await h.controller.monitorNodeHealth();
    const z = h.controller.snapshot().zones[0];
    assert.deepEqual([z?.state, z?.nodes, z?.notReady], ['Normal', 1, 0]);
    assert.ok(h.noExecute('x1'), 'excluded nodes are still tainted');
  });

  it('entering the mode lifts every NoExecute taint and writes Zone objects and events; leaving resets grace', async () => {
    const h = harness();
    h.addNode('a1', { ready: 'True', zone: 'a' });
    h.addNode('b1', { ready: 'Unknown', zone: 'b' });
    await h.controller.monitorNodeHealth();
    assert.ok(h.noExecute('b1'), 'a lone Full zone is still tainted at the normal rate');
    await h.clock.advance(5_000);
    h.postReady('a1', 'False');
    await h.controller.monitorNodeHealth();
    const snap = h.controller.snapshot();
    assert.equal(snap.masterDisruption, true);
    assert.equal(h.noExecute('b1'), undefined);
    assert.equal(h.noExecute('a1'), undefined);
    assert.deepEqual(
      snap.zones.map((z) => [z.zone, z.state, z.evictionRate, z.queued]),
      [
        ['a', 'FullDisruption', 0, ['a1']],
        ['b', 'FullDisruption', 0, ['b1']],
      ],
    );
    const zoneA = h.client.data.zones.get('a') as unknown as {
      status: { state: string };
      metadata: { annotations: Record<string, string> };
    };
    assert.equal(zoneA.status.state, 'FullDisruption');
    assert.equal(zoneA.metadata.annotations['shepherd.io/master-disruption'], 'true');
    assert.equal(h.events('MasterDisruption').length, 1);
    assert.match(await h.registry.metrics(), /shepherd_node_lifecycle_master_disruption 1/);
    await h.clock.advance(5_000);
    h.postReady('a1', 'True');
    await h.controller.monitorNodeHealth();
    assert.equal(h.controller.snapshot().masterDisruption, false);
    assert.equal(h.controller.healthOf('b1')?.probeTimestamp, 10_000, 'fresh grace for every node');
    assert.equal(h.events('MasterDisruption').length, 2);
    const zoneA2 = h.client.data.zones.get('a') as unknown as { metadata: { annotations?: Record<string, string> } };
    assert.equal(zoneA2.metadata.annotations?.['shepherd.io/master-disruption'], undefined);
  });
});
