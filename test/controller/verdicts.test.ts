import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Lease } from '../../src/core/lease.js';
import type { Verdict } from '../../src/core/verdict.js';
import { VerdictInputSchema } from '../../src/core/verdict-schema.js';
import { harness, type Harness } from './node-lifecycle-harness.js';

const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

/** Passes every 5 s until monotonic `endMs`; `renewing` agents renew every 10 s just before that pass. */
async function runUntil(h: Harness, endMs: number, renewing: Iterable<string> = []): Promise<void> {
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(5_000);
    if (h.clock.monotonic() % 10_000 === 0) for (const n of renewing) h.renew(n);
    await h.controller.monitorNodeHealth();
  }
}

/** The controller's own loop (a pass every 5 s, the tainter every 100 ms) until monotonic `endMs`. */
async function loopUntil(h: Harness, endMs: number, renewing: Iterable<string>): Promise<void> {
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(100);
    if (h.clock.monotonic() % 10_000 === 0) for (const n of renewing) h.renew(n);
  }
}

const actions = (vs: Verdict[]): string[] => vs.map((v) => `${v.node} ${v.action}/${v.reason}`);

function valid(v: Verdict): void {
  const parsed = VerdictInputSchema.safeParse(v);
  assert.ok(parsed.success, `${v.metadata.name} fits the Verdict schema: ${JSON.stringify(parsed.error?.issues)}`);
}

describe('verdicts: one per decision, none without', () => {
  it('a healthy fleet over many passes writes no verdict', async () => {
    const h = harness();
    for (const n of ['a1', 'a2', 'b1']) h.addNode(n, { ready: 'True', zone: n[0] as string });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 300_000, ['a1', 'a2', 'b1']);
    assert.deepEqual(h.verdicts.written, []);
  });

  it("a new node's first Ready is no decision: no verdict (a fleet bring-up must not flood the pacer)", async () => {
    const h = harness();
    h.addNode('n1', { zone: 'z' });
    await h.controller.monitorNodeHealth();
    await h.clock.advance(5_000);
    h.postReady('n1', 'True');
    await h.controller.monitorNodeHealth();
    assert.equal(h.events('NodeReady').length, 1, 'the event is still there');
    assert.deepEqual(h.verdicts.written, []);
  });

  it('silence: one MarkUnknown with the evidence, one Taint, then nothing while the node stays dead', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 50_000, ['n2']);
    assert.deepEqual(h.verdicts.written, [], 'within the grace: no decision');
    await runUntil(h, 55_000, ['n2']);
    assert.deepEqual(actions(h.verdicts.written), ['n1 MarkUnknown/HeartbeatTimeout', 'n1 Taint/Unreachable']);
    const [mark, taint] = h.verdicts.written as unknown as [Verdict, Verdict];
    for (const v of h.verdicts.written) valid(v);
    const lease = h.client.data.leases.get('node-lease/n1') as unknown as Lease;
    assert.equal(mark.dryRun, false);
    assert.equal(mark.metadata.labels?.['shepherd.io/node'], 'n1');
    assert.equal(mark.metadata.name, `n1.${T0 + 55_000}-1`);
    assert.deepEqual(mark.evidence, {
      observedAt: at(55),
      lastRenewalObservedAt: at(0),
      silentForSeconds: 55,
      graceSeconds: 50,
      lease: {
        renewTime: lease.spec.renewTime,
        cachedResourceVersion: lease.metadata.resourceVersion,
        liveResourceVersion: lease.metadata.resourceVersion,
      },
      zone: {
        name: 'z',
        state: 'Normal',
        nodes: 2,
        notReady: 1,
        evictionRate: 0.1,
        queuePosition: 1,
        earliestTaintAt: at(55),
      },
      breaker: { open: false },
      masterDisruption: false,
      detector: { kind: 'fixed' },
    });
    assert.equal(
      mark.next,
      'taint node.kubernetes.io/unreachable:NoExecute at about 12:00:55Z (queue position 1 of 1 in zone z at 0.1/s)',
    );
    assert.match(mark.message, /observed for 55s \(grace 50s\); last renewal observed at 12:00:00Z/);
    assert.match(taint.message, /tainted node\.kubernetes\.io\/unreachable:NoExecute \(zone z at 0\.1\/s, after 0s/);
    assert.equal(taint.evidence.silentForSeconds, 55);
    assert.equal(taint.evidence.zone?.queuePosition, undefined, 'no longer waiting');
    await runUntil(h, 200_000, ['n2']);
    assert.equal(h.verdicts.written.length, 2, 'a dead node costs no more verdicts');
    const metrics = await h.registry.metrics();
    assert.match(metrics, /shepherd_node_lifecycle_verdicts_total\{action="MarkUnknown",reason="HeartbeatTimeout"\} 1/);
    assert.match(metrics, /shepherd_node_lifecycle_verdicts_total\{action="Taint",reason="Unreachable"\} 1/);
  });

  it('back again: Ready, then RemoveTaint; nothing more while it renews', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 60_000, ['n2']);
    h.verdicts.written.length = 0;
    h.renew('n1');
    h.postReady('n1', 'True');
    await runUntil(h, 65_000, ['n2']);
    assert.deepEqual(actions(h.verdicts.written), ['n1 Ready/NodeReady', 'n1 RemoveTaint/Ready']);
    const [ready, removed] = h.verdicts.written as unknown as [Verdict, Verdict];
    assert.equal(ready.evidence.silentForSeconds, 0);
    assert.equal(ready.evidence.lastRenewalObservedAt, at(65));
    assert.match(ready.message, /Ready again \(it was Unknown\)/);
    assert.match(
      ready.next ?? '',
      /^lift its NoExecute taint in this pass; then nothing while it renews; marked Unknown after 50s/,
    );
    assert.match(removed.message, /node\.kubernetes\.io\/unreachable:NoExecute removed/);
    await runUntil(h, 200_000, ['n1', 'n2']);
    assert.equal(h.verdicts.written.length, 2);
  });

  it('Ready=False from the agent: QueueTaint with position and ETA; Unknown after it: SwapTaint', async () => {
    const h = harness();
    for (const n of ['n1', 'n2', 'n3', 'n4']) h.addNode(n, { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await h.clock.advance(5_000);
    h.postReady('n1', 'False');
    h.postReady('n2', 'False');
    await h.controller.monitorNodeHealth();
    assert.deepEqual(actions(h.verdicts.written), [
      'n1 QueueTaint/NotReady',
      'n2 QueueTaint/NotReady',
      'n1 Taint/NotReady',
    ]);
    const q2 = h.verdicts.written[1] as Verdict;
    assert.equal(q2.evidence.zone?.queuePosition, 2);
    assert.equal(q2.evidence.zone?.earliestTaintAt, at(15), 'one token now for n1, the next 10 s later');
    assert.match(q2.next ?? '', /at about 12:00:15Z \(queue position 2 of 2 in zone z at 0\.1\/s\)/);
    // n2's taint comes exactly when its verdict said.
    const ac = new AbortController();
    const loop = h.controller.run(ac.signal);
    await loopUntil(h, 15_000, ['n3', 'n4']);
    const t2 = h.verdicts.of('n2', 'Taint');
    assert.equal(t2.length, 1);
    assert.equal(t2[0]?.evidence.observedAt, at(15));
    // The agent of n1 goes silent and the controller marks it Unknown: its not-ready taint is swapped at once.
    await loopUntil(h, 70_000, ['n2', 'n3', 'n4']);
    ac.abort();
    await h.clock.advance(100);
    await loop;
    assert.deepEqual(actions(h.verdicts.of('n1')).slice(2), [
      'n1 MarkUnknown/HeartbeatTimeout',
      'n1 SwapTaint/Unreachable',
    ]);
    assert.equal(
      h.verdicts.of('n1', 'MarkUnknown')[0]?.next,
      'swap node.kubernetes.io/not-ready:NoExecute for node.kubernetes.io/unreachable:NoExecute in this pass, at once (no token)',
    );
    for (const v of h.verdicts.written) valid(v);
  });

  it('a node already queued (Ready=False) and then marked: its MarkUnknown says what it waits for', async () => {
    const h = harness({ nodeEvictionRate: 0 });
    for (const n of ['n1', 'n2', 'n3', 'n4']) h.addNode(n, { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await h.clock.advance(5_000);
    h.postReady('n1', 'False');
    await h.controller.monitorNodeHealth();
    await runUntil(h, 60_000, ['n2', 'n3', 'n4']);
    assert.deepEqual(actions(h.verdicts.written), ['n1 QueueTaint/NotReady', 'n1 MarkUnknown/HeartbeatTimeout']);
    const mark = h.verdicts.written[1] as Verdict;
    assert.equal(mark.evidence.zone?.queuePosition, 1);
    assert.equal(mark.evidence.zone?.earliestTaintAt, undefined, 'rate 0: never');
    assert.equal(
      mark.next,
      'no node.kubernetes.io/unreachable:NoExecute while zone z has rate 0 (--node-eviction-rate)',
    );
  });

  it('three nodes of a zone die together: positions 1-3, ETAs 10 s apart, each taint on time', async () => {
    const h = harness();
    const all = Array.from({ length: 10 }, (_, i) => `n${i}`);
    for (const n of all) h.addNode(n, { ready: 'True', zone: 'z' });
    const alive = new Set(all.slice(3));
    const ac = new AbortController();
    const loop = h.controller.run(ac.signal);
    await loopUntil(h, 90_000, alive);
    ac.abort();
    await h.clock.advance(100);
    await loop;
    const marks = h.verdicts.written.filter((v) => v.action === 'MarkUnknown');
    assert.deepEqual(
      marks.map((v) => [v.node, v.evidence.zone?.queuePosition, v.evidence.zone?.earliestTaintAt]),
      [
        ['n0', 1, at(55)],
        ['n1', 2, at(65)],
        ['n2', 3, at(75)],
      ],
    );
    assert.deepEqual(
      h.verdicts.written.filter((v) => v.action === 'Taint').map((v) => [v.node, v.evidence.observedAt]),
      [
        ['n0', at(55)],
        ['n1', at(65)],
        ['n2', at(75)],
      ],
    );
  });
});

describe('Zone objects carry the live view', () => {
  it('the settings always, the queue head with each ETA while nodes wait', async () => {
    const h = harness();
    const all = Array.from({ length: 10 }, (_, i) => `n${i}`);
    for (const n of all) h.addNode(n, { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    const notes = (): Record<string, string> =>
      (h.client.data.zones.get('z') as unknown as { metadata: { annotations: Record<string, string> } }).metadata
        .annotations;
    assert.deepEqual(JSON.parse(notes()['shepherd.io/node-lifecycle-settings'] ?? ''), {
      nodeMonitorPeriodSeconds: 5,
      nodeMonitorGracePeriodSeconds: 50,
      nodeStartupGracePeriodSeconds: 60,
      nodeEvictionRate: 0.1,
      secondaryNodeEvictionRate: 0.01,
      largeClusterSizeThreshold: 50,
      unhealthyZoneThreshold: 0.55,
    });
    assert.equal(notes()['shepherd.io/taint-queue'], undefined);
    await runUntil(h, 55_000, all.slice(3));
    // n0 was tainted in the pass; n1 and n2 wait, one token every 10 s.
    assert.deepEqual(JSON.parse(notes()['shepherd.io/taint-queue'] ?? ''), {
      length: 2,
      next: [
        { node: 'n1', at: at(65) },
        { node: 'n2', at: at(75) },
      ],
    });
    const zoneWrites = h.client.callsOf('zones', 'update').length;
    await runUntil(h, 60_000, all.slice(3));
    assert.equal(h.client.callsOf('zones', 'update').length, zoneWrites, 'an unchanged queue is not rewritten');
    await runUntil(h, 80_000, all.slice(3));
    assert.equal(notes()['shepherd.io/taint-queue'], undefined, 'gone once the queue is empty');
  });
});

describe('verdicts: holds', () => {
  it('a stale lease cache: one Hold per held node with both resourceVersions, none per later pass', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    h.client.syncLeases = false;
    await runUntil(h, 55_000, ['n1', 'n2']);
    assert.deepEqual(actions(h.verdicts.written), ['n1 Hold/LeaseCacheStale', 'n2 Hold/LeaseCacheStale']);
    const hold = h.verdicts.written[0] as Verdict;
    valid(hold);
    const live = (h.client.data.leases.get('node-lease/n1') as unknown as Lease).metadata.resourceVersion;
    const cached = h.leases.get('node-lease/n1')?.metadata.resourceVersion;
    assert.deepEqual(hold.evidence.lease, {
      renewTime: at(0),
      cachedResourceVersion: cached,
      liveResourceVersion: live,
    });
    assert.equal(hold.evidence.breaker?.open, true);
    assert.match(hold.evidence.breaker?.reason ?? '', /live but \d+ in the cache/);
    assert.equal(hold.evidence.silentForSeconds, 55);
    assert.match(hold.message, /looks silent for 55s \(grace 50s\) but is not marked/);
    assert.match(
      hold.next ?? '',
      /^mark it Unknown at the first pass after the lease cache catches up \(to resourceVersion \d+\)/,
    );
    const stale = h.events('LeaseCacheStale');
    assert.match(stale[0]?.message ?? '', /looked silent for 55s, grace 50s/);
    await runUntil(h, 120_000, ['n1', 'n2']);
    assert.equal(h.verdicts.written.length, 2, 'check A holds them for many passes: no verdict per pass');
    assert.equal(h.statusWrites(), 0);
  });

  it('every zone down: one Hold (MasterDisruption) per node and one RemoveTaint per lifted taint', async () => {
    const h = harness();
    h.addNode('a1', { ready: 'True', zone: 'a' });
    h.addNode('a2', { ready: 'True', zone: 'a' });
    h.addNode('b1', { ready: 'True', zone: 'b' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 55_000, ['a2', 'b1']); // a1 marked and tainted, zone a 1 of 2 not Ready: Normal
    assert.ok(h.noExecute('a1'));
    h.verdicts.written.length = 0;
    await runUntil(h, 115_000); // a2 and b1 silent from 50 s: marked at 105 s, every zone Full
    assert.equal(h.controller.snapshot().masterDisruption, true);
    const got = actions(h.verdicts.written);
    assert.deepEqual(
      got.filter((a) => a.includes('MarkUnknown')),
      ['a2 MarkUnknown/HeartbeatTimeout', 'b1 MarkUnknown/HeartbeatTimeout'],
    );
    assert.deepEqual(
      got.filter((a) => !a.includes('MarkUnknown')),
      ['a1 Hold/MasterDisruption', 'a1 RemoveTaint/MasterDisruption'],
    );
    const mark = h.verdicts.of('b1', 'MarkUnknown')[0] as Verdict;
    assert.equal(mark.evidence.masterDisruption, true);
    assert.match(mark.next ?? '', /^no node\.kubernetes\.io\/unreachable:NoExecute while every zone is FullDisruption/);
    const n = h.verdicts.written.length;
    await runUntil(h, 300_000);
    assert.equal(h.verdicts.written.length, n, 'no verdict per pass while the mode lasts');
  });
});

describe('verdicts: bounded', () => {
  it('a rack failure of 600 nodes: one MarkUnknown each, paced with the events, never repeated', async () => {
    const h = harness();
    const a = Array.from({ length: 800 }, (_, i) => `a${String(i).padStart(3, '0')}`);
    const b = Array.from({ length: 100 }, (_, i) => `b${String(i).padStart(3, '0')}`);
    for (const n of a) h.addNode(n, { ready: 'True', zone: 'a' });
    for (const n of b) h.addNode(n, { ready: 'True', zone: 'b' });
    await h.controller.monitorNodeHealth();
    const alive = new Set([...a, ...b]);
    await runUntil(h, 50_000, alive);
    // Let the 900 RegisteredNode events drain at the paced rate, so the next burst is the failure's alone.
    await runUntil(h, 100_000, alive);
    const eventsBefore = h.events().length;
    h.verdicts.written.length = 0;
    for (const n of a.slice(0, 600)) alive.delete(n);
    await runUntil(h, 160_000, alive); // silent since 100 s: marked at 155 s
    const writes = (): number => h.verdicts.written.length + h.events().length - eventsBefore;
    assert.ok(writes() <= 500 + 50 * 5, `one burst plus the sustained rate: ${writes()} writes`);
    await runUntil(h, 200_000, alive);
    const marks = h.verdicts.written.filter((v) => v.action === 'MarkUnknown');
    assert.equal(marks.length, 600, 'every mark gets its verdict');
    assert.equal(new Set(marks.map((v) => v.node)).size, 600, 'one each');
    const zone = marks[0]?.evidence.zone;
    assert.equal(zone?.state, 'PartialDisruption');
    assert.equal(zone?.evictionRate, 0.01);
    const others = h.verdicts.written.filter((v) => v.action !== 'MarkUnknown');
    assert.ok(
      others.every((v) => v.action === 'Taint'),
      actions(others).join(', '),
    );
    assert.ok(others.length <= 3, 'taints at the zone rate, 0.01/s');
    const n = h.verdicts.written.length;
    await runUntil(h, 260_000, alive);
    assert.ok(h.verdicts.written.length - n <= 1, 'afterwards: only the next paced taint');
  });
});
