import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readyCondition, type Node } from '../../src/core/node.js';
import { WITNESS_REPORT_ANNOTATION } from '../../src/core/witness-report.js';
import { validateNodeLifecycleConfig, defaultNodeLifecycleConfig } from '../../src/controller/node-lifecycle/config.js';
import {
  DEFAULT_WITNESS_WEIGHING,
  type WitnessWeighingConfig,
} from '../../src/controller/node-lifecycle/witness-weighing.js';
import { harness, type Harness } from './node-lifecycle-harness.js';

// The controller weighs peer witnesses (docs/witnesses.md#the-verdict), on a fake clock with the default grace
// (50 s) and monitor period (5 s). `x` goes silent at 0; its witnesses' reports are annotations on their own Nodes.

const ZONES: Record<string, string> = { x: 'zone-a', a2: 'zone-a', b1: 'zone-b', b2: 'zone-b', c1: 'zone-c' };

function rig(witnesses: Partial<WitnessWeighingConfig> | undefined = {}): Harness {
  const h = harness(witnesses === undefined ? {} : { witnesses: { ...DEFAULT_WITNESS_WEIGHING, ...witnesses } });
  for (const [name, zone] of Object.entries(ZONES)) h.addNode(name, { ready: 'True', zone });
  return h;
}

/** `witness` reports these nodes reachable (true) or not (false) on its own Node. */
function report(h: Harness, witness: string, about: Record<string, boolean>): void {
  const node = h.node(witness);
  const entries = Object.fromEntries(
    Object.entries(about).map(([n, reachable]) => [n, { reachable, since: '2026-11-29T12:00:00.000Z' }]),
  );
  h.client.put('nodes', {
    ...node,
    metadata: {
      ...node.metadata,
      annotations: { ...node.metadata.annotations, [WITNESS_REPORT_ANNOTATION]: JSON.stringify(entries) },
    },
  });
}

/** Passes every 5 s until `untilMs`; every node but `silent` renews its lease each step. */
async function run(h: Harness, untilMs: number, silent: string[] = ['x']): Promise<void> {
  while (h.clock.monotonic() < untilMs) {
    await h.clock.advance(5_000);
    for (const name of Object.keys(ZONES)) if (!silent.includes(name)) h.renew(name);
    await h.controller.monitorNodeHealth();
  }
}

const taintsOf = (n: Node): string[] => (n.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
const UNREACHABLE_NS = 'node.kubernetes.io/unreachable:NoSchedule';

describe('witness weighing in the controller', () => {
  it('holds a silent node that two live witnesses in two zones still reach: NoSchedule only, reason NodePartitioned', async () => {
    const h = rig();
    report(h, 'b1', { x: true });
    report(h, 'c1', { x: true });
    await run(h, 300_000);
    const x = h.node('x');
    assert.equal(readyCondition(x)?.status, 'Unknown');
    assert.equal(readyCondition(x)?.reason, 'NodePartitioned');
    assert.match(readyCondition(x)?.message ?? '', /2 witnesses in 2 zones/);
    assert.deepEqual(taintsOf(x), [UNREACHABLE_NS], 'no NoExecute taint: its pods stay');
    assert.equal(h.events('NodePartitioned').length, 1);
    const [v] = h.verdicts.of('x', 'Partitioned');
    assert.ok(v);
    assert.equal(v.reason, 'NodePartitioned');
    assert.deepEqual(
      v.evidence.witnesses?.map((w) => [w.node, w.zone, w.reachable, w.sawAliveAt !== undefined]),
      [
        ['b1', 'zone-b', true, true],
        ['c1', 'zone-c', true, true],
      ],
    );
    assert.match(v.next ?? '', /max-hold 10m/);
    assert.equal(h.verdicts.of('x', 'MarkUnknown').length, 1, 'the mark itself is recorded as before');
  });

  it('two witnesses of one zone are not enough (--witness-min-zones 2): dead as today', async () => {
    const h = rig();
    report(h, 'b1', { x: true });
    report(h, 'b2', { x: true });
    await run(h, 60_000);
    assert.equal(readyCondition(h.node('x'))?.reason, 'NodeStatusUnknown');
    assert.ok(h.noExecute('x'));
    assert.equal(h.verdicts.of('x', 'Partitioned').length, 0);
  });

  it('one witness is not a quorum; with --witness-quorum 1 --witness-min-zones 1 it is', async () => {
    const h = rig();
    report(h, 'b1', { x: true });
    await run(h, 60_000);
    assert.ok(h.noExecute('x'));
    const h1 = rig({ quorum: 1, minZones: 1 });
    report(h1, 'b1', { x: true });
    await run(h1, 60_000);
    assert.equal(h1.noExecute('x'), undefined);
  });

  it('a silent witness does not count: its report is as old as its silence', async () => {
    const h = rig();
    report(h, 'b1', { x: true });
    report(h, 'c1', { x: true });
    await run(h, 60_000, ['x', 'c1']);
    assert.ok(h.noExecute('x'));
    const [mark] = h.verdicts.of('x', 'MarkUnknown');
    assert.equal(readyCondition(h.node('x'))?.reason, 'NodeStatusUnknown', String(mark?.message));
  });

  it('a lying witness is one vote: it cannot keep a dead node, nor all of them', async () => {
    const h = rig();
    // b1 says everyone is alive; c1 honestly lost x; a2 says nothing.
    report(h, 'b1', { x: true, a2: true, c1: true, b2: true });
    report(h, 'c1', { x: false });
    await run(h, 60_000);
    assert.ok(h.noExecute('x'));
    assert.equal(h.verdicts.of('x', 'Partitioned').length, 0);
    // A report a node makes about itself is no vote either.
    const h2 = rig();
    report(h2, 'x', { x: true });
    report(h2, 'b1', { x: true });
    await run(h2, 60_000);
    assert.ok(h2.noExecute('x'));
  });

  it('witnesses that lose the held node too end the hold: NoExecute, verdict WitnessesLost', async () => {
    const h = rig();
    report(h, 'b1', { x: true });
    report(h, 'c1', { x: true });
    await run(h, 100_000);
    assert.equal(h.noExecute('x'), undefined);
    report(h, 'c1', { x: false });
    await run(h, 105_000);
    assert.ok(h.noExecute('x'));
    const lost = h.verdicts.of('x', 'Partitioned').map((v) => v.reason);
    assert.deepEqual(lost, ['NodePartitioned', 'WitnessesLost']);
    // Witnesses that see it again do not take the conviction back in the same silence.
    report(h, 'c1', { x: true });
    await run(h, 120_000);
    assert.ok(h.noExecute('x'));
    assert.equal(h.verdicts.of('x', 'Partitioned').length, 2);
  });

  it('after --node-partition-max-hold a partitioned node is treated as dead', async () => {
    const h = rig({ maxHoldMs: 120_000 });
    report(h, 'b1', { x: true });
    report(h, 'c1', { x: true });
    // First seen at the first pass (5 s), so marked and held at 60 s.
    await run(h, 180_000);
    assert.equal(h.noExecute('x'), undefined, 'held at 180 s: 120 s into the hold');
    await run(h, 185_000);
    assert.ok(h.noExecute('x'));
    assert.deepEqual(
      h.verdicts.of('x', 'Partitioned').map((v) => v.reason),
      ['NodePartitioned', 'PartitionMaxHold'],
    );
  });

  it('--node-partition-policy evict: evicted on the same schedule as without witnesses, and the finding recorded', async () => {
    const h = rig({ policy: 'evict' });
    report(h, 'b1', { x: true });
    report(h, 'c1', { x: true });
    const off = rig(undefined);
    await run(h, 60_000);
    await run(off, 60_000);
    assert.ok(h.noExecute('x'));
    assert.deepEqual(taintsOf(h.node('x')), taintsOf(off.node('x')));
    assert.equal(h.noExecute('x')?.timeAdded, off.noExecute('x')?.timeAdded);
    assert.equal(readyCondition(h.node('x'))?.reason, 'NodeStatusUnknown');
    assert.deepEqual(
      h.verdicts.of('x', 'Partitioned').map((v) => v.reason),
      ['PartitionPolicyEvict'],
    );
  });

  it('a held node that comes back is Ready without ever having had a NoExecute taint; a later silence is weighed afresh', async () => {
    const h = rig();
    report(h, 'b1', { x: true });
    report(h, 'c1', { x: true });
    await run(h, 100_000);
    h.renew('x');
    h.postReady('x', 'True');
    await run(h, 105_000, []);
    assert.equal(readyCondition(h.node('x'))?.status, 'True');
    assert.deepEqual(taintsOf(h.node('x')), []);
    await run(h, 200_000);
    assert.equal(readyCondition(h.node('x'))?.reason, 'NodePartitioned');
    assert.equal(h.noExecute('x'), undefined);
    assert.equal(h.verdicts.of('x', 'Partitioned').length, 2);
  });

  it('without reports, or with --witness-quorum 0, the controller decides exactly as without witnesses', async () => {
    const on = rig();
    const zero = rig({ quorum: 0 });
    const off = rig(undefined);
    report(zero, 'b1', { x: true });
    report(zero, 'c1', { x: true });
    for (const h of [on, zero, off]) await run(h, 120_000);
    const view = (h: Harness): unknown => [
      taintsOf(h.node('x')),
      h.noExecute('x')?.timeAdded,
      readyCondition(h.node('x')),
      h.verdicts.written.map((v) => [v.node, v.action, v.reason, v.message]),
      h.events().map((e) => [e.reason, e.message]),
    ];
    assert.deepEqual(view(on), view(off));
    assert.deepEqual(view(zero), view(off));
  });

  it('a node that already carries a NoExecute taint is not held: its pods are gone or going', async () => {
    const h = rig();
    // Its agent said NotReady and it was tainted for it; then it went silent.
    const x = h.postReady('x', 'False');
    h.client.put('nodes', {
      ...x,
      spec: {
        taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute', timeAdded: '2026-11-29T12:00:00Z' }],
      },
    });
    report(h, 'b1', { x: true });
    report(h, 'c1', { x: true });
    await run(h, 60_000);
    assert.ok(h.noExecute('x'));
    assert.equal(h.noExecute('x')?.key, 'node.kubernetes.io/unreachable', 'swapped at once, as without witnesses');
    assert.equal(readyCondition(h.node('x'))?.reason, 'NodeStatusUnknown');
    assert.equal(h.verdicts.of('x', 'Partitioned').length, 0);
  });

  it('refuses settings that cannot work, naming the flag', () => {
    const bad = validateNodeLifecycleConfig({
      ...defaultNodeLifecycleConfig,
      witnesses: { quorum: 1, minZones: 2, policy: 'hold', maxHoldMs: 0 },
    });
    assert.ok(bad.some((p) => p.includes('--witness-min-zones')));
    assert.ok(bad.some((p) => p.includes('--node-partition-max-hold')));
  });
});
