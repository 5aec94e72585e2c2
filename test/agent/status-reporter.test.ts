import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initialNode } from '../../src/agent/registration.js';
import { StatusReporter } from '../../src/agent/status-reporter.js';
import { recordingLogger } from '../../src/core/logger.js';
import type { Node } from '../../src/core/node.js';
import type { Random } from '../../src/core/random.js';
import type { Op } from '../support/fake-api-store.js';
import { agentConfig, FakeHost, fakes, fixedRandom, unreachable } from './agent-fixtures.js';

const MIN = 60_000;

function setup(random: Random = fixedRandom(0), withRecreate = false) {
  const { clock, client } = fakes();
  const log = recordingLogger();
  const host = new FakeHost();
  const config = agentConfig();
  const created = client.put<Node>('nodes', { ...initialNode(config, host), apiVersion: 'v1', kind: 'Node' } as Node);
  let recreated = 0;
  const reporter = new StatusReporter({
    client,
    clock,
    random,
    log,
    config,
    host,
    ...(withRecreate
      ? {
          recreateNode: async () => {
            recreated++;
            return client.put<Node>('nodes', { ...initialNode(config, host), apiVersion: 'v1', kind: 'Node' } as Node);
          },
        }
      : {}),
  });
  reporter.adopt(created);
  const calls: { op: Op; at: number }[] = [];
  client.beforeCall = (c) => {
    if (c.resource === 'nodes') calls.push({ op: c.op, at: clock.monotonic() });
  };
  const ac = new AbortController();
  const running = reporter.run(ac.signal);
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  const posts = (): number[] => calls.filter((c) => c.op === 'updateStatus').map((c) => c.at);
  const stored = (): Node => client.data.nodes.get('node-1') as unknown as Node;
  return { clock, client, log, host, reporter, calls, posts, stored, stop, recreated: () => recreated };
}

const cond = (n: Node, type: string) => n.status.conditions?.find((c) => c.type === type);

describe('StatusReporter', () => {
  it('posts at start, then an unchanged status only on the (first time jittered) report frequency', async () => {
    const t = setup(fixedRandom(0));
    await t.clock.advance(20 * MIN);
    // Start post at 0; jitter −50 % puts the first unchanged post at 2.5 min; then every 5 min.
    assert.deepEqual(t.posts(), [0, 150_000, 450_000, 750_000, 1_050_000]);
    assert.equal(t.reporter.stats().statusPosts, 5);
    assert.equal(cond(t.stored(), 'Ready')?.status, 'True');
    assert.equal(cond(t.stored(), 'Ready')?.lastHeartbeatTime, new Date(t.clock.now() - 150_000).toISOString());
    await t.stop();
  });

  it('with the longest jitter waits up to 7.5 min for the first unchanged post', async () => {
    const t = setup(fixedRandom(0.999));
    await t.clock.advance(20 * MIN);
    const p = t.posts();
    assert.equal(p[0], 0);
    assert.ok((p[1] as number) >= 449_700 && (p[1] as number) < 449_700 + 10_400, `second post at ${p[1]}`);
    assert.ok((p[2] as number) - (p[1] as number) >= 300_000 && (p[2] as number) - (p[1] as number) < 310_400);
    assert.equal(p.length, 4);
    await t.stop();
  });

  it('posts within one update period of a change, and re-jitters after it', async () => {
    const t = setup(fixedRandom(0));
    await t.clock.advance(35_000);
    t.host.mem = { availableBytes: 1e8, totalBytes: 16e9 };
    await t.clock.advance(70_000);
    assert.equal(cond(t.stored(), 'MemoryPressure')?.status, 'True');
    const transition = cond(t.stored(), 'MemoryPressure')?.lastTransitionTime;
    t.host.mem = { availableBytes: 8e9, totalBytes: 16e9 };
    await t.clock.advance(300_000 - 105_000);
    assert.deepEqual(t.posts(), [0, 40_000, 110_000, 260_000]);
    assert.equal(cond(t.stored(), 'MemoryPressure')?.status, 'False');
    assert.notEqual(cond(t.stored(), 'MemoryPressure')?.lastTransitionTime, transition);
    assert.equal(cond(t.stored(), 'Ready')?.lastTransitionTime, new Date(t.clock.now() - 300_000).toISOString());
    await t.stop();
  });

  it('on 409 GETs the node once and posts on top of the new version', async () => {
    const t = setup();
    await t.clock.advance(1000);
    const node = t.stored();
    t.client.put('nodes', { ...node, spec: { taints: [{ key: 'example.com/maintenance', effect: 'NoSchedule' }] } });
    t.host.diskReading = { freeBytes: 1e9, totalBytes: 1000e9 };
    await t.clock.advance(10_000);
    assert.deepEqual(
      t.calls.map((c) => c.op),
      ['updateStatus', 'updateStatus', 'get', 'updateStatus'],
    );
    assert.equal(cond(t.stored(), 'DiskPressure')?.status, 'True');
    assert.deepEqual(t.stored().spec.taints?.[0]?.key, 'example.com/maintenance');
    assert.equal(t.reporter.stats().statusPostFailures, 0);
    await t.stop();
  });

  it('after forcePost re-asserts Ready over a controller Unknown, with a new transition time', async () => {
    const t = setup();
    await t.clock.advance(1000);
    const node = t.stored();
    const unknown = (node.status.conditions ?? []).map((c) => ({
      ...c,
      status: 'Unknown' as const,
      reason: 'NodeStatusUnknown',
    }));
    t.client.put('nodes', { ...node, status: { ...node.status, conditions: unknown } });
    await t.clock.advance(20_000);
    assert.equal(t.posts().length, 1, 'unchanged by our view: no post yet');
    t.reporter.forcePost();
    await t.clock.advance(10_000);
    assert.equal(cond(t.stored(), 'Ready')?.status, 'True');
    assert.equal(cond(t.stored(), 'Ready')?.lastTransitionTime, new Date(t.clock.now() - 1000).toISOString());
    assert.equal(t.posts().length, 3, 'the forced post met a 409 and was retried once');
    await t.stop();
  });

  it('heal: told its node is Unknown (a renewal answer), it posts at once, not at the next tick', async () => {
    const t = setup();
    await t.clock.advance(1000);
    assert.equal(t.reporter.heal('True'), false, 'what it posted: nothing to heal');
    const node = t.stored();
    const unknown = (node.status.conditions ?? []).map((c) => ({ ...c, status: 'Unknown' as const }));
    t.client.put('nodes', { ...node, status: { ...node.status, conditions: unknown } });
    await t.clock.advance(2_000);
    assert.equal(t.reporter.heal('Unknown'), true);
    await t.clock.advance(0);
    assert.equal(cond(t.stored(), 'Ready')?.status, 'True', 'Ready again at 3 s, the next tick was at 10 s');
    assert.deepEqual(t.posts(), [0, 3_000, 3_000], 'one post, a 409 and its retry, at the moment of the heal');
    await t.stop();
  });

  it('keeps trying at each tick while the API is unreachable, logging the outage once', async () => {
    const t = setup();
    t.client.failNext('nodes', 'updateStatus', unreachable(), 4);
    await t.clock.advance(45_000);
    assert.deepEqual(t.posts(), [0, 10_000, 20_000, 30_000, 40_000]);
    assert.equal(t.reporter.stats().statusPostFailures, 4);
    assert.equal(t.reporter.stats().statusPosts, 1);
    assert.deepEqual(
      t.log.lines.map((l) => l.level),
      ['warn', 'info'],
    );
    await t.stop();
  });

  it('registers the node again when it was deleted', async () => {
    const t = setup(fixedRandom(0), true);
    await t.clock.advance(1000);
    t.client.remove('nodes', 'node-1');
    t.host.mem = { availableBytes: 1, totalBytes: 16e9 };
    await t.clock.advance(10_000);
    assert.equal(t.recreated(), 1);
    assert.equal(cond(t.stored(), 'MemoryPressure')?.status, 'True');
    await t.stop();
  });

  it('reports DiskPressure Unknown when the disk cannot be measured, warning once', async () => {
    const t = setup();
    t.host.diskReading = new Error('ENOENT: no such file or directory, statfs /data');
    await t.clock.advance(30_000);
    assert.equal(cond(t.stored(), 'DiskPressure')?.status, 'Unknown');
    assert.equal(t.log.lines.filter((l) => l.level === 'warn').length, 1);
    await t.stop();
  });
});
