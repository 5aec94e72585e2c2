import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { ApiClient } from '../../src/client/api-client.js';
import { defaultNodeLifecycleConfig, type NodeLifecycleConfig } from '../../src/controller/node-lifecycle/config.js';
import { refuseWrites } from '../../src/controller/node-lifecycle/dry-run-client.js';
import { NodeLifecycleController } from '../../src/controller/node-lifecycle/node-lifecycle-controller.js';
import { isReason } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Verdict } from '../../src/core/verdict.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { harness, makeNode, RecordingVerdictSink, type Harness } from './node-lifecycle-harness.js';

const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

async function refused(p: Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(
    p,
    (err) => isReason(err, 'Forbidden') && /dry-run controller: refusing/.test(String(err)),
    what,
  );
}

describe('refuseWrites: the dry-run client cannot write', () => {
  it('refuses every write on every resource, lets reads through', async () => {
    const fake = new FakeApiClient({
      nodes: [{ ...makeNode('n1', T0), metadata: { ...makeNode('n1', T0).metadata, resourceVersion: '1' } }],
    });
    const c = refuseWrites(fake);
    const node = await c.nodes.get('n1');
    assert.equal(node.metadata.name, 'n1');
    assert.equal((await c.nodes.list()).items.length, 1);
    assert.equal((await c.version()).version, '0.1.0');
    await refused(c.nodes.update(node), 'nodes.update');
    await refused(c.nodes.updateStatus(node), 'nodes.updateStatus');
    await refused(c.nodes.create(makeNode('n2', T0)), 'nodes.create');
    await refused(c.nodes.delete('n1'), 'nodes.delete');
    await refused(c.leases().delete('n1'), 'leases.delete');
    await refused(c.leases('shepherd-system').create({} as never), 'leases(ns).create');
    await refused(c.events.create({} as never), 'events.create');
    await refused(c.zones.create({} as never), 'zones.create');
    await refused(c.zones.update({} as never), 'zones.update');
    assert.deepEqual(
      fake.calls.filter((x) => x.op !== 'get' && x.op !== 'list'),
      [],
      'no write reached the client',
    );
  });

  it('lets verdict creates through, and nothing else of them; an unknown write method is refused too', async () => {
    const created: string[] = [];
    const client = {
      verdicts: {
        create: async (v: { node: string }) => (created.push(v.node), v),
        delete: async () => undefined,
      },
      pods: () => ({ bind: async () => undefined, get: async () => 'pod' }),
    } as unknown as ApiClient;
    const c = refuseWrites(client) as unknown as {
      verdicts: { create(v: unknown): Promise<unknown>; delete(n: string): Promise<unknown> };
      pods(): { bind(): Promise<unknown>; get(): Promise<unknown> };
    };
    await c.verdicts.create({ node: 'n1' });
    assert.deepEqual(created, ['n1']);
    await refused(c.verdicts.delete('x'), 'verdicts.delete');
    await refused(c.pods().bind(), 'pods().bind (a write method the dry-run never heard of)');
    assert.equal(await c.pods().get(), 'pod');
  });
});

/** A dry-run controller over the harness's API and caches, beside (or instead of) the harness's live one. */
function dryRun(
  h: Harness,
  overrides: Partial<NodeLifecycleConfig>,
): {
  controller: NodeLifecycleController;
  verdicts: RecordingVerdictSink;
  registry: Registry;
} {
  const verdicts = new RecordingVerdictSink();
  const registry = new Registry();
  const controller = new NodeLifecycleController({
    client: h.client,
    nodes: h.nodes,
    leases: h.leases,
    clock: h.clock,
    log: silentLogger,
    config: { ...defaultNodeLifecycleConfig, ...overrides },
    metrics: registry,
    verdicts,
    dryRun: true,
  });
  return { controller, verdicts, registry };
}

/** Passes of both controllers every 5 s until `endMs`; `renewing` agents renew every 10 s. */
async function both(
  h: Harness,
  shadow: NodeLifecycleController,
  endMs: number,
  renewing: Iterable<string>,
  live = true,
): Promise<void> {
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(5_000);
    if (h.clock.monotonic() % 10_000 === 0) for (const n of renewing) h.renew(n);
    if (live) await h.controller.monitorNodeHealth();
    await shadow.monitorNodeHealth();
  }
}

const summary = (vs: Verdict[]): string[] =>
  vs.map((v) => `${v.node} ${v.action} ${v.evidence.observedAt.slice(11, 19)}`);
const writes = (h: Harness): number => h.client.calls.filter((c) => !['get', 'list', 'watch'].includes(c.op)).length;

describe('dry-run controller', () => {
  it('alone: records what it would do, writes nothing, and follows its own simulated writes', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    const before = writes(h);
    const shadow = dryRun(h, { nodeMonitorGracePeriodMs: 20_000 });
    await shadow.controller.monitorNodeHealth();
    await both(h, shadow.controller, 120_000, ['n2'], false);
    assert.equal(writes(h), before, 'no Node, taint, Zone or Event written');
    assert.equal(h.node('n1').status.conditions?.[0]?.status, 'True', 'the store still says Ready');
    assert.deepEqual(summary(shadow.verdicts.written), ['n1 MarkUnknown 12:00:25', 'n1 Taint 12:00:25']);
    for (const v of shadow.verdicts.written) {
      assert.equal(v.dryRun, true);
      assert.match(v.metadata.name, /^n1\.dry-\d+-\d+$/);
    }
    // It remembers its own mark and taint: the pass after them decides nothing again.
    assert.equal(shadow.verdicts.written.length, 2);
    const metrics = await shadow.registry.metrics();
    assert.match(
      metrics,
      /shepherd_node_lifecycle_dry_run_verdicts_total\{action="MarkUnknown",reason="HeartbeatTimeout"\} 1/,
    );
    assert.doesNotMatch(metrics, /shepherd_node_lifecycle_verdicts_total/);
    // The agent comes back: Ready again and its simulated taint is lifted, still without a write.
    h.renew('n1');
    h.postReady('n1', 'True');
    const writesNow = writes(h);
    await both(h, shadow.controller, 130_000, ['n1', 'n2'], false);
    assert.equal(writes(h), writesNow);
    assert.deepEqual(summary(shadow.verdicts.written).slice(2), ['n1 Ready 12:02:05', 'n1 RemoveTaint 12:02:05']);
  });

  it('a shorter grace beside the live controller: marks earlier, and ignores the live mark and taint', async () => {
    const h = harness();
    for (const n of ['n1', 'n2', 'n3']) h.addNode(n, { ready: 'True', zone: 'z' });
    const shadow = dryRun(h, { nodeMonitorGracePeriodMs: 20_000 });
    await h.controller.monitorNodeHealth();
    await shadow.controller.monitorNodeHealth();
    await both(h, shadow.controller, 120_000, ['n2', 'n3']);
    assert.deepEqual(summary(h.verdicts.written), ['n1 MarkUnknown 12:00:55', 'n1 Taint 12:00:55']);
    assert.deepEqual(
      summary(shadow.verdicts.written),
      ['n1 MarkUnknown 12:00:25', 'n1 Taint 12:00:25'],
      'the live mark (Ready=Unknown) and taint of 12:00:55 change nothing for the dry-run',
    );
  });

  it('a longer grace beside the live controller: its own mark and taint come later, not with the live ones', async () => {
    const h = harness();
    for (const n of ['n1', 'n2', 'n3']) h.addNode(n, { ready: 'True', zone: 'z' });
    const shadow = dryRun(h, { nodeMonitorGracePeriodMs: 80_000, nodeEvictionRate: 0.05 });
    await h.controller.monitorNodeHealth();
    await shadow.controller.monitorNodeHealth();
    await both(h, shadow.controller, 150_000, ['n2', 'n3']);
    assert.ok(h.noExecute('n1'), 'the live controller tainted n1 at 55 s');
    assert.deepEqual(summary(shadow.verdicts.written), ['n1 MarkUnknown 12:01:25', 'n1 Taint 12:01:25']);
    const mark = shadow.verdicts.written[0] as Verdict;
    assert.equal(mark.evidence.graceSeconds, 80);
    assert.equal(mark.evidence.lastRenewalObservedAt, at(0));
    assert.equal(mark.evidence.zone?.evictionRate, 0.05);
  });

  it('a stale lease cache holds the dry-run too (its live lease reads are allowed)', async () => {
    const h = harness();
    h.addNode('n1', { ready: 'True', zone: 'z' });
    h.addNode('n2', { ready: 'True', zone: 'z' });
    const shadow = dryRun(h, {});
    await shadow.controller.monitorNodeHealth();
    h.client.syncLeases = false;
    await both(h, shadow.controller, 60_000, ['n1', 'n2'], false);
    assert.deepEqual(
      shadow.verdicts.written.map((v) => `${v.node} ${v.action}/${v.reason}`),
      ['n1 Hold/LeaseCacheStale', 'n2 Hold/LeaseCacheStale'],
    );
    assert.equal(h.events().length, 0, 'and writes no LeaseCacheStale event');
  });
});
