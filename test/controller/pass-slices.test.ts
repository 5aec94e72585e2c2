import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassSlicer, walkInSlices, type SliceTiming } from '../../src/controller/node-lifecycle/pass-slicer.js';
import { harness, makeLease, makeNode, type Harness } from './node-lifecycle-harness.js';

// docs/node-lifecycle.md#a-pass-in-slices

const N = 1_000;
const name = (i: number): string => `n-${String(i).padStart(4, '0')}`;

/**
 * A slice timing whose clock moves 1 ms at every look, so a 1 ms budget ends a slice at every look the walks make
 * (one per 256 nodes); `onYield` runs while the pass has stepped aside, as the rest of the process would.
 */
function steppingSlices(onYield: (n: number) => void = () => undefined): { slicer: PassSlicer; yields: () => number } {
  let t = 0;
  let yields = 0;
  const timing: SliceTiming = {
    now: () => t++,
    yield: async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      onYield(++yields);
    },
  };
  return { slicer: new PassSlicer(timing, 1), yields: () => yields };
}

function fleet(h: Harness): void {
  for (let i = 0; i < N; i++) h.addNode(name(i), { ready: 'True', zone: `z${i % 3}` });
}

/** Passes every 5 s until `endMs`; every node but the `dead` ones renews every 10 s. */
async function runUntil(h: Harness, endMs: number, dead: (i: number) => boolean): Promise<void> {
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(5_000);
    if (h.clock.monotonic() % 10_000 === 0) for (let i = 0; i < N; i++) if (!dead(i)) h.renew(name(i));
    await h.controller.monitorNodeHealth();
  }
}

const outcome = (h: Harness): string[] =>
  [...h.client.data.nodes.values()].map((n) => {
    const node = n as unknown as ReturnType<typeof h.node>;
    const ready = node.status.conditions?.find((c) => c.type === 'Ready')?.status;
    const taints = (node.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`).join(',');
    return `${node.metadata.name} ${ready} ${taints}`;
  });

describe('a monitor pass in slices', () => {
  it('a walk steps aside every 256 nodes at most, and a resumed walk gets past the node it stopped at', async () => {
    // A clock on which every slice is always over.
    let t = 0;
    const slicer = new PassSlicer({ now: () => (t += 1_000), yield: async () => undefined }, 1);
    slicer.begin();
    const seen: number[] = [];
    let steps = 0;
    await walkInSlices(1_000, slicer, (from) => {
      if (++steps > 10) throw new Error(`the walk is stuck at node ${from}`);
      for (let i = from; i < 1_000; i++) {
        if (slicer.due(i)) return i;
        seen.push(i);
      }
      return 1_000;
    });
    assert.equal(seen.length, 1_000, 'every node once');
    assert.equal(slicer.pauses, 3, 'before nodes 255, 511 and 767');
    const never = new PassSlicer({ now: () => (t += 1_000), yield: async () => undefined }, 0);
    assert.equal(never.due(255), false, 'a budget of 0 never steps aside');
  });

  it('steps aside between slices and decides what a pass in one stretch decides', async () => {
    const dead = (i: number): boolean => i % 97 === 0;
    const whole = harness();
    const cut = steppingSlices();
    const sliced = harness({}, { slicer: cut.slicer });
    for (const h of [whole, sliced]) {
      fleet(h);
      await runUntil(h, 90_000, dead);
    }
    assert.ok(cut.yields() >= 18 * 3, `the 1,000-node judgement alone steps aside 3 times a pass (${cut.yields()})`);
    assert.deepEqual(outcome(sliced), outcome(whole));
    assert.equal(sliced.statusWrites(), whole.statusWrites());
    const unknown = outcome(sliced).filter((l) => l.includes(' Unknown '));
    assert.equal(unknown.length, Math.ceil(N / 97), 'every dead node marked, no live one');
    const decisions = (h: Harness): string[] => h.verdicts.written.map((v) => `${v.node} ${v.action}`).sort();
    assert.deepEqual(decisions(sliced), decisions(whole));
  });

  it('judges the snapshot it took while the caches move on, and sees the moves next pass', async () => {
    const moved: { armed: boolean; at: number; h?: Harness } = { armed: false, at: -1 };
    const cut = steppingSlices(() => {
      const h = moved.h;
      if (!moved.armed || h === undefined || moved.at >= 0) return;
      // While the pass steps aside: a node renews (the caches patch their sorted lists in place), one goes, one comes.
      h.renew(name(N - 2));
      h.nodes.remove(name(N - 1));
      h.client.put('nodes', makeNode('n-zzzz', h.clock.now(), { ready: 'True', zone: 'z0' }));
      h.client.put('leases', makeLease('n-zzzz', h.clock.now()));
      moved.at = h.clock.monotonic();
    });
    const h = (moved.h = harness({}, { slicer: cut.slicer }));
    fleet(h);
    await h.controller.monitorNodeHealth();
    const firstProbe = h.controller.healthOf(name(N - 2))?.probeTimestamp;
    await h.clock.advance(5_000);
    moved.armed = true;
    await h.controller.monitorNodeHealth();
    assert.equal(moved.at, 5_000, 'the caches moved during the second pass');
    assert.equal(h.controller.snapshot().healthRecords, N, 'the pass registered the nodes of its snapshot');
    assert.ok(h.controller.healthOf(name(N - 1)), 'a node deleted meanwhile was still judged');
    assert.equal(h.controller.healthOf('n-zzzz'), undefined, 'a node added meanwhile waits for the next pass');
    assert.equal(h.controller.healthOf(name(N - 2))?.probeTimestamp, firstProbe, 'a renewal meanwhile, too');

    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.equal(h.controller.healthOf(name(N - 1)), undefined);
    assert.ok(h.controller.healthOf('n-zzzz'));
    assert.equal(h.controller.healthOf(name(N - 2))?.probeTimestamp, 10_000, 'the renewal observed at this pass');
    assert.equal(h.controller.snapshot().healthRecords, N);
  });

  it('a controller stopped while its pass stepped aside commits nothing of the judgement', async () => {
    const ac = new AbortController();
    const cut = steppingSlices(() => ac.abort());
    const h = harness({}, { slicer: cut.slicer });
    fleet(h);
    await h.controller.monitorNodeHealth(ac.signal);
    assert.ok(cut.yields() >= 1);
    assert.equal(h.controller.snapshot().healthRecords, 0, 'no node registered');
    const writes = h.client.calls.filter((c) => c.op !== 'get' && c.op !== 'list');
    assert.deepEqual(writes, [], 'nothing written');
  });
});
