import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUSPECT_CHUNK } from '../../src/controller/node-lifecycle/adaptive-detection.js';
import { defaultDetectionConfig, type DetectionConfig } from '../../src/controller/node-lifecycle/detector.js';
import { FLAPPING_TAINT_KEY } from '../../src/controller/node-lifecycle/flap-damper.js';
import { VerdictInputSchema } from '../../src/core/verdict-schema.js';
import type { Node } from '../../src/core/node.js';
import { harness, type Harness } from './node-lifecycle-harness.js';

/** Passes every 5 s until monotonic `endMs`; `renewing` agents renew every 10 s just before that pass. */
async function runUntil(h: Harness, endMs: number, renewing: Iterable<string> = []): Promise<void> {
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(5_000);
    if (h.clock.monotonic() % 10_000 === 0) for (const n of renewing) h.renew(n);
    await h.controller.monitorNodeHealth();
  }
}

const suspectOf = (h: Harness, name: string): string | undefined =>
  h.node(name).status.conditions?.find((c) => c.type === 'Suspect')?.status;
const readyOf = (h: Harness, name: string): string | undefined =>
  h.node(name).status.conditions?.find((c) => c.type === 'Ready')?.status;
const actions = (h: Harness, name: string): string[] => h.verdicts.of(name).map((v) => `${v.action}/${v.reason}`);

function detecting(detection: Partial<DetectionConfig> = {}): Harness {
  return harness({ detection: { ...defaultDetectionConfig, ...detection } });
}

describe('Suspect', () => {
  it('a node silent for more than 1.5 renew intervals is Suspect: condition, verdict, metric; no taint', async () => {
    const h = detecting();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 15_000, ['n2']);
    assert.equal(suspectOf(h, 'n1'), undefined, 'silent 15 s: not more than 1.5 × 10 s');
    await runUntil(h, 20_000, ['n2']);
    assert.equal(suspectOf(h, 'n1'), 'True');
    assert.equal(readyOf(h, 'n1'), 'True', 'Suspect changes nothing else');
    assert.deepEqual(h.node('n1').spec.taints ?? [], []);
    assert.deepEqual(actions(h, 'n1'), ['Suspect/MissedRenewals']);
    const v = h.verdicts.of('n1', 'Suspect')[0]!;
    assert.ok(VerdictInputSchema.safeParse(v).success);
    assert.equal(v.evidence.graceSeconds, 15);
    assert.equal(v.evidence.silentForSeconds, 20);
    assert.equal(v.evidence.detector?.kind, 'fixed');
    const metrics = await h.registry.metrics();
    assert.match(metrics, /shepherd_node_lifecycle_suspect_nodes_in_zone\{zone="z"\} 1/);
    assert.equal(suspectOf(h, 'n2'), undefined, 'a renewing node is never Suspect');
    assert.equal(h.statusWrites('n2'), 0);
  });

  it('Suspect stays through the Unknown mark and turns False at the next renewal', async () => {
    const h = detecting();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 55_000);
    assert.equal(readyOf(h, 'n1'), 'Unknown');
    assert.equal(suspectOf(h, 'n1'), 'True', 'the Unknown mark leaves the controller its own condition');
    h.renew('n1');
    await runUntil(h, 60_000);
    assert.equal(suspectOf(h, 'n1'), 'False');
    assert.deepEqual(actions(h, 'n1'), [
      'Suspect/MissedRenewals',
      'MarkUnknown/HeartbeatTimeout',
      'Unsuspect/RenewalsObserved',
    ]);
    const metrics = await h.registry.metrics();
    assert.match(metrics, /shepherd_node_lifecycle_suspect_nodes_in_zone\{zone="z"\} 0/);
  });

  it('without a detection block nothing of it runs (the behaviour before it)', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 45_000);
    assert.equal(suspectOf(h, 'n1'), undefined);
    assert.deepEqual(h.verdicts.written, []);
  });
});

describe('Suspect writes in chunks', () => {
  it('a pass that doubts more nodes than a chunk hands each chunk its verdicts before writing the next', async () => {
    const h = detecting();
    const n = 2 * SUSPECT_CHUNK + 10;
    for (let i = 0; i < n; i++) h.addNode(`n${String(i).padStart(4, '0')}`, { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 15_000);
    assert.equal(h.statusWrites(), 0, 'silent 15 s: nobody is Suspect yet');
    const create = h.verdicts.create.bind(h.verdicts);
    let writesAtFirstVerdict: number | undefined;
    h.verdicts.create = (v) => {
      writesAtFirstVerdict ??= h.statusWrites();
      return create(v);
    };
    await runUntil(h, 20_000);
    assert.equal(h.statusWrites(), n, 'one Suspect write per node, in the same pass');
    for (let i = 0; i < n; i++) assert.equal(suspectOf(h, `n${String(i).padStart(4, '0')}`), 'True');
    assert.ok(writesAtFirstVerdict !== undefined, 'verdicts went to the sink during the pass');
    assert.ok(
      writesAtFirstVerdict <= SUSPECT_CHUNK,
      `the first verdict went out after ${writesAtFirstVerdict} writes, not after the whole pass (${n})`,
    );
    // Paced verdicts: every node gets exactly one Suspect verdict once the pacer has let them all out.
    await runUntil(h, 45_000);
    assert.equal(h.verdicts.of(undefined, 'Suspect').length, n);
    assert.equal(new Set(h.verdicts.of(undefined, 'Suspect').map((v) => v.node)).size, n);
  });
});

describe('Suspect writes take at most one monitor period a pass', () => {
  const name = (i: number): string => `n${String(i).padStart(4, '0')}`;

  it('a pass whose Suspect writes outlast the period leaves the rest to the next pass, and every node gets there', async () => {
    const h = detecting();
    const n = 4 * SUSPECT_CHUNK + 10;
    for (let i = 0; i < n; i++) h.addNode(name(i), { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 15_000);
    assert.equal(h.statusWrites(), 0, 'silent 15 s: nobody is Suspect yet');
    // Each status write takes 4 ms: a chunk 2 s, so the 5 s budget ends after the third chunk.
    const perWriteMs = 4;
    h.client.onChange((resource) => {
      if (resource === 'nodes') h.clock.elapse(perWriteMs);
    });
    await h.clock.advance(5_000);
    const started = h.clock.monotonic();
    await h.controller.monitorNodeHealth();
    const tookMs = h.clock.monotonic() - started;
    const chunkMs = SUSPECT_CHUNK * perWriteMs;
    assert.equal(h.statusWrites(), 3 * SUSPECT_CHUNK, 'chunks started within the budget, and no more');
    assert.equal(h.statusWrites(name(3 * SUSPECT_CHUNK - 1)), 1, 'the first nodes in name order were written');
    assert.equal(h.statusWrites(name(3 * SUSPECT_CHUNK)), 0);
    assert.ok(tookMs <= h.config.nodeMonitorPeriodMs + chunkMs, `the pass took ${tookMs} ms`);
    assert.match(await h.registry.metrics(), new RegExp(`suspect_writes_deferred_total ${n - 3 * SUSPECT_CHUNK}\n`));
    assert.ok(h.lines.some((l) => l.msg.includes(`${n - 3 * SUSPECT_CHUNK} of ${n} Suspect changes are left`)));
    // The next pass writes the rest: every node once, each with one verdict.
    await runUntil(h, h.clock.monotonic() + 5_000);
    assert.equal(h.statusWrites(), n);
    for (let i = 0; i < n; i++) assert.equal(h.statusWrites(name(i)), 1, name(i));
    await runUntil(h, h.clock.monotonic() + 60_000); // the pacer lets the verdicts out at its rate
    assert.equal(h.verdicts.of(undefined, 'Suspect').length, n);
    assert.equal(new Set(h.verdicts.of(undefined, 'Suspect').map((v) => v.node)).size, n);
  });

  it('a store slower than the whole budget still gets one chunk written each pass', async () => {
    const h = detecting();
    const n = 2 * SUSPECT_CHUNK;
    for (let i = 0; i < n; i++) h.addNode(name(i), { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 15_000);
    h.client.onChange((resource) => {
      if (resource === 'nodes') h.clock.elapse(h.config.nodeMonitorPeriodMs); // every write outlasts the budget
    });
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.equal(h.statusWrites(), SUSPECT_CHUNK);
  });
});

describe('Suspect writes let go of the copies they judged', () => {
  const name = (i: number): string => `n${String(i).padStart(4, '0')}`;

  /** A cold start over silent nodes: the pass at 20 s marks all `n` Suspect. */
  async function doubtAll(h: Harness, n: number): Promise<void> {
    for (let i = 0; i < n; i++) h.addNode(name(i), { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 15_000);
    assert.equal(h.statusWrites(), 0);
  }

  it('once the cache holds a written node, its health record keeps the cache copy, not the pre-write one', async () => {
    const h = detecting();
    const n = 2 * SUSPECT_CHUNK + 10;
    await doubtAll(h, n);
    const before = h.nodes.get(name(0))!;
    await runUntil(h, 20_000);
    assert.equal(h.statusWrites(), n);
    const cached = h.nodes.get(name(0))!;
    assert.notEqual(cached, before, 'the write reached the cache as a new copy');
    // Chunks written before the last: adopted the cache's copy; the last chunk keeps its own until the next pass.
    assert.equal(h.controller.healthOf(name(0))?.status, cached.status);
    assert.equal(h.controller.healthOf(name(SUSPECT_CHUNK - 1))?.status, h.nodes.get(name(SUSPECT_CHUNK - 1))!.status);
    assert.notEqual(h.controller.healthOf(name(n - 1))?.status, h.nodes.get(name(n - 1))!.status);
    // Decisions are those of before: everyone Suspect once, and nothing is written again at the next passes.
    await runUntil(h, 30_000);
    assert.equal(h.statusWrites(), n);
    assert.equal(h.verdicts.of(undefined, 'Unsuspect').length, 0);
  });

  it('a heartbeat posted after our write is not hidden: the newer copy is not adopted and the node is unsuspected', async () => {
    const h = detecting();
    const n = SUSPECT_CHUNK + 10;
    await doubtAll(h, n);
    let posted = false;
    h.client.onChange((resource, _type, obj) => {
      const node = obj as unknown as Node;
      if (resource !== 'nodes' || posted || node.metadata.name !== name(0)) return;
      if (!node.status.conditions?.some((c) => c.type === 'Suspect')) return;
      posted = true;
      h.postReady(name(0), 'True');
    });
    await runUntil(h, 20_000);
    assert.ok(posted, 'the agent posted right after our Suspect write');
    assert.notEqual(h.controller.healthOf(name(0))?.status, h.nodes.get(name(0))!.status, 'not adopted');
    await runUntil(h, 25_000);
    assert.equal(suspectOf(h, name(0)), 'False', 'the heartbeat was observed');
    assert.equal(suspectOf(h, name(1)), 'True');
  });
});

describe('phi detector in the controller', () => {
  it('marks a regular node that stops at the minimum grace (25 s), not the grace (50 s), with phi evidence', async () => {
    const h = detecting({ failureDetector: 'phi' });
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 200_000, ['n1', 'n2']);
    assert.deepEqual(h.verdicts.written, [], 'regular nodes: no Suspect, no mark');
    await runUntil(h, 225_000, ['n2']);
    assert.equal(readyOf(h, 'n1'), 'True', 'silent 25 s: not yet');
    await runUntil(h, 230_000, ['n2']);
    assert.equal(readyOf(h, 'n1'), 'Unknown');
    const mark = h.verdicts.of('n1', 'MarkUnknown')[0]!;
    assert.ok(VerdictInputSchema.safeParse(mark).success);
    const d = mark.evidence.detector!;
    assert.equal(d.kind, 'phi');
    assert.equal(d.threshold, 8);
    assert.equal(d.meanIntervalSeconds, 10);
    assert.equal(d.stdDeviationSeconds, 0);
    assert.ok((d.phi as number) >= 8);
    assert.equal(d.expiresAfterSeconds, 25);
    assert.equal(readyOf(h, 'n2'), 'True');
  });

  it('a node with too few samples falls back to the fixed grace', async () => {
    const h = detecting({ failureDetector: 'phi' });
    h.addNode('n1', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 50_000);
    assert.equal(readyOf(h, 'n1'), 'True', 'no history: the fixed 50 s grace');
    await runUntil(h, 55_000);
    assert.equal(readyOf(h, 'n1'), 'Unknown');
    assert.equal(h.verdicts.of('n1', 'MarkUnknown')[0]?.evidence.detector?.kind, 'fixed');
  });

  it('a controller pause clears the history: the node is judged by the fixed rule afterwards', async () => {
    const h = detecting({ failureDetector: 'phi' });
    h.addNode('n1', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 200_000, ['n1']);
    assert.ok((h.controller.healthOf('n1')?.detection?.window?.size ?? 0) >= 10);
    await h.clock.advance(120_000); // no pass: the controller was stopped
    await h.controller.monitorNodeHealth();
    assert.equal(h.events('ControllerPaused').length, 1);
    assert.equal(h.controller.healthOf('n1')?.detection?.window?.size, 0);
    const start = h.clock.monotonic();
    await runUntil(h, start + 50_000);
    assert.equal(readyOf(h, 'n1'), 'True', 'fresh grace and no history: not before 50 s');
    await runUntil(h, start + 55_000);
    assert.equal(readyOf(h, 'n1'), 'Unknown');
  });
});

describe('flap damping', () => {
  /** One not-Ready → Ready cycle, a pass after each post. */
  async function flap(h: Harness, name: string): Promise<void> {
    h.postReady(name, 'False');
    await runUntil(h, h.clock.monotonic() + 5_000, [name]);
    h.postReady(name, 'True');
    await runUntil(h, h.clock.monotonic() + 5_000, [name]);
  }

  it('more than the threshold of returns in the window: NoSchedule taint, event, verdict; lifted after a Ready window', async () => {
    const h = detecting({ flapThreshold: 2, flapWindowMs: 60_000 });
    h.addNode('n1', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await flap(h, 'n1');
    await flap(h, 'n1');
    const flappingTaint = () => h.node('n1').spec.taints?.find((t) => t.key === FLAPPING_TAINT_KEY);
    assert.equal(flappingTaint(), undefined, '2 returns: not more than 2');
    await flap(h, 'n1');
    assert.deepEqual(
      { key: flappingTaint()?.key, effect: flappingTaint()?.effect },
      { key: FLAPPING_TAINT_KEY, effect: 'NoSchedule' },
    );
    assert.equal(h.events('NodeFlapping').length, 1);
    const v = h.verdicts.of('n1', 'Flapping')[0]!;
    assert.ok(VerdictInputSchema.safeParse(v).success);
    assert.deepEqual(v.evidence.flapping, { transitions: 3, windowSeconds: 60 });
    const back = h.clock.monotonic();
    await runUntil(h, back + 55_000, ['n1']);
    assert.ok(flappingTaint(), 'Ready for less than the window: kept');
    await runUntil(h, back + 65_000, ['n1']);
    assert.equal(flappingTaint(), undefined, 'Ready for the window: lifted');
    assert.equal(h.verdicts.of('n1', 'Unflapping').length, 1);
    assert.equal(h.events('NodeFlapping').length, 1);
  });

  it('a flapping taint found after a restart goes after a Ready window; with damping off at once', async () => {
    const h = detecting({ flapThreshold: 0 });
    h.addNode('n1', { ready: 'True', zone: 'z', taints: [{ key: FLAPPING_TAINT_KEY, effect: 'NoSchedule' }] });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 5_000, ['n1']);
    assert.equal(h.node('n1').spec.taints?.length ?? 0, 0);
    const k = detecting({ flapWindowMs: 30_000 });
    k.addNode('n1', { ready: 'True', zone: 'z', taints: [{ key: FLAPPING_TAINT_KEY, effect: 'NoSchedule' }] });
    await k.controller.monitorNodeHealth();
    await runUntil(k, 25_000, ['n1']);
    assert.equal(k.node('n1').spec.taints?.length, 1);
    await runUntil(k, 35_000, ['n1']);
    assert.equal(k.node('n1').spec.taints?.length ?? 0, 0);
  });
});

describe('Suspect across a controller restart', () => {
  it('a Suspect left by the last controller stays until a renewal is observed (a fresh grace is no evidence)', async () => {
    const h = detecting();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 20_000);
    assert.equal(suspectOf(h, 'n1'), 'True');
    h.restart();
    await runUntil(h, 30_000);
    assert.equal(suspectOf(h, 'n1'), 'True', 'no Unsuspect from the restart alone');
    h.renew('n1');
    await runUntil(h, 35_000);
    assert.equal(suspectOf(h, 'n1'), 'False');
    assert.deepEqual(actions(h, 'n1'), ['Suspect/MissedRenewals', 'Unsuspect/RenewalsObserved']);
  });
});
