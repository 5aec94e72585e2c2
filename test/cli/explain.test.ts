import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { explainNode, runExplainNode } from '../../src/cli/explain-node.js';
import { partialDisruptionAt, runExplainZone } from '../../src/cli/explain-zone.js';
import { runVerdicts } from '../../src/cli/verdicts.js';
import { runDescribeNode } from '../../src/cli/describe.js';
import { defaultNodeLifecycleConfig } from '../../src/controller/node-lifecycle/config.js';
import { NodeLifecycleController } from '../../src/controller/node-lifecycle/node-lifecycle-controller.js';
import type { Lease } from '../../src/core/lease.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Node } from '../../src/core/node.js';
import type { Verdict } from '../../src/core/verdict.js';
import type { Zone } from '../../src/core/zone.js';
import { harness, RecordingVerdictSink, type Harness } from '../controller/node-lifecycle-harness.js';
import { assertGolden, testDeps } from './capture.js';

const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const ZONE = 'us-east-1b';
const NODES = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6'];

/**
 * A real controller run (and a dry-run controller with a 20 s grace beside it), on the fake clock: six nodes in
 * one zone, three of them silent from the start; the CLI then reads what the controllers left in the API.
 */
async function story(endMs: number): Promise<{ h: Harness; verdicts: Verdict[] }> {
  const h = harness();
  for (const n of NODES) h.addNode(n, { ready: 'True', zone: ZONE });
  const dry = new RecordingVerdictSink();
  const shadow = new NodeLifecycleController({
    client: h.client,
    nodes: h.nodes,
    leases: h.leases,
    clock: h.clock,
    log: silentLogger,
    config: { ...defaultNodeLifecycleConfig, nodeMonitorGracePeriodMs: 20_000 },
    verdicts: dry,
    dryRun: true,
  });
  const ac = new AbortController();
  const loops = [h.controller.run(ac.signal), shadow.run(ac.signal)];
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(100);
    if (h.clock.monotonic() % 10_000 === 0) for (const n of NODES.slice(3)) h.renew(n);
  }
  ac.abort();
  await h.clock.advance(100);
  await Promise.all(loops);
  const verdicts = [...h.verdicts.written, ...dry.written];
  // The API serves them (field selector node=NAME), as the Verdict resource does.
  for (const v of verdicts) h.client.put('verdicts', v);
  return { h, verdicts };
}

const depsAt = (h: Harness, ms: number): ReturnType<typeof testDeps> => testDeps(h.client, { now: () => T0 + ms });

describe('sheepctl explain node', () => {
  it('a queued node: Unknown since its mark, its place in the queue and the taint time, the timeline, the dry-run', async () => {
    const { h } = await story(58_000);
    const d = depsAt(h, 58_000);
    assert.equal(await runExplainNode(d, 'node-3', 'text'), 0);
    assertGolden('explain-node-queued', d.out.text);
    assert.match(
      d.out.text.split('\n')[0] ?? '',
      /^node-3 is Unknown since 12:00:55Z; it waits for its NoExecute taint at position 2 of 2 in zone us-east-1b at 0\.1\/s: tainted at about 12:01:15Z\.$/,
    );
  });

  it('the taint comes when explain said', async () => {
    const { h } = await story(75_100);
    const taint = h.node('node-3').spec.taints?.find((t) => t.effect === 'NoExecute');
    assert.equal(taint?.timeAdded, new Date(T0 + 75_000).toISOString());
  });

  it('a tainted node and a Ready one', async () => {
    const { h } = await story(58_000);
    const d = depsAt(h, 58_000);
    await runExplainNode(d, 'node-1', 'text');
    assertGolden('explain-node-tainted', d.out.text);
    const r = depsAt(h, 58_000);
    await runExplainNode(r, 'node-5', 'text');
    assertGolden('explain-node-ready', r.out.text);
    assert.match(
      r.out.text,
      /^node-5 is Ready: last renewal 8s ago \(by the agent's clock\); if it goes silent it is marked Unknown at about 12:01:40Z \(grace 50s\)\./,
    );
  });

  it('-o json and -o yaml give the same as data', async () => {
    const { h } = await story(58_000);
    const j = depsAt(h, 58_000);
    await runExplainNode(j, 'node-3', 'json');
    const y = depsAt(h, 58_000);
    await runExplainNode(y, 'node-3', 'yaml');
    const data = JSON.parse(j.out.text) as ReturnType<typeof explainNode>;
    assert.deepEqual(parse(y.out.text), data);
    assert.equal(data.now.queue?.position, 2);
    assert.equal(data.now.queue?.taintAt, new Date(T0 + 75_000).toISOString());
    assert.deepEqual(
      data.dryRun?.map((p) => [p.action, p.differenceSeconds]),
      [
        ['MarkUnknown', -30],
        ['Taint', undefined],
      ],
    );
  });

  it('the breaker holding: what it waits for', () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', uid: 'u', resourceVersion: '5', creationTimestamp: new Date(T0).toISOString() },
      spec: {},
      status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: new Date(T0).toISOString() }] },
    } as Node;
    const zone = {
      apiVersion: 'v1',
      kind: 'Zone',
      metadata: {
        name: 'z',
        uid: 'z',
        resourceVersion: '9',
        creationTimestamp: new Date(T0).toISOString(),
        annotations: {
          'shepherd.io/lease-circuit-breaker':
            'holding: the leases cache is at resourceVersion 7, older than 12 seen live',
        },
      },
      status: { state: 'Normal', nodes: 2, notReady: 0, evictionRate: 0.1 },
    } as Zone;
    const e = explainNode({
      node,
      lease: undefined as Lease | undefined,
      zone,
      zones: [zone],
      verdicts: [],
      now: T0 + 60_000,
    });
    assert.equal(
      e.summary,
      'n1 is Ready; the lease circuit breaker holds the controller (the leases cache is at resourceVersion 7, older than 12 seen live): no node is marked Unknown or tainted while it waits for the lease cache to catch up with what the controller read live.',
    );
    assert.equal(e.now.hold?.kind, 'LeaseCircuitBreaker');
  });
});

describe('sheepctl explain zone', () => {
  it('state, thresholds, queue with ETAs, master disruption and breaker', async () => {
    const { h } = await story(58_000);
    const d = depsAt(h, 58_000);
    assert.equal(await runExplainZone(d, ZONE, 'text'), 0);
    assertGolden('explain-zone', d.out.text);
  });

  it('the fewest not-Ready nodes that make a zone PartialDisruption', () => {
    assert.equal(partialDisruptionAt(6, 0.55), 4);
    assert.equal(partialDisruptionAt(4, 0.55), 3);
    assert.equal(partialDisruptionAt(20, 0.55), 11);
    assert.equal(partialDisruptionAt(3, 0.55), undefined, 'never: 3 of 3 is FullDisruption');
  });
});

describe('sheepctl verdicts and describe node', () => {
  it('lists the verdicts oldest first; --dry-run compares the shadow with the live controller', async () => {
    const { h } = await story(80_000);
    const d = depsAt(h, 80_000);
    await runVerdicts(d, { dryRun: false, output: 'table' });
    assertGolden('verdicts', d.out.text);
    const c = depsAt(h, 80_000);
    await runVerdicts(c, { dryRun: true, sinceMs: 3_600_000, output: 'table' });
    assertGolden('verdicts-dry-run', c.out.text);
    assert.match(
      c.out.text,
      /MarkUnknown: the dry-run on 3 node\(s\), the live controller on 3; 3 paired \(3 earlier, 0 later, 0 at the same time, 30s earlier on average\)/,
    );
  });

  it('describe node shows the last verdict', async () => {
    const { h } = await story(58_000);
    const d = depsAt(h, 58_000);
    await runDescribeNode(d, 'node-1');
    assert.match(d.out.text, /Last Verdict:\n {2}Time: +12:00:55Z \(3s ago\)\n {2}Decision: +Taint \(Unreachable\)\n/);
    assert.match(d.out.text, /Timeline: +sheepctl explain node node-1\n/);
  });
});
