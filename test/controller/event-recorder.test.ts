import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventRecorder, type EventLimits } from '../../src/controller/node-lifecycle/events.js';
import { recordingLogger } from '../../src/core/logger.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { FakeClock } from '../support/fake-clock.js';

function setup(limits: Partial<EventLimits> = { qps: 10, burst: 5, maxQueued: 8, maxInFlight: 2 }) {
  const clock = new FakeClock();
  const client = new FakeApiClient({ now: () => clock.now() });
  let n = 0;
  // The fake stores events by name; give each one a unique name as the server would.
  const create = client.events.create.bind(client.events);
  (client.events as { create: typeof create }).create = (obj) => create({ ...obj, metadata: { name: `ev-${++n}` } });
  const log = recordingLogger();
  const rec = new EventRecorder({ client, clock, log, limits });
  const reasons = (): string[] =>
    [...client.data.events.values()].map((e) => (e as unknown as { reason: string }).reason);
  return { clock, client, rec, log, reasons };
}

test('a burst goes out at once, the rest at the sustained rate, without stalling flush()', async () => {
  const { clock, rec, reasons } = setup();
  for (let i = 0; i < 7; i++) rec.emit({ kind: 'Node', name: `n${i}` }, 'Normal', 'RegisteredNode', `registered n${i}`);
  await rec.flush();
  assert.equal(reasons().length, 5, 'burst of 5');
  assert.equal(rec.queued, 2);
  await clock.advance(100);
  await rec.flush();
  assert.equal(reasons().length, 6, 'one more token after 1/qps');
  await clock.advance(100);
  await rec.flush();
  assert.equal(reasons().length, 7);
  assert.equal(rec.queued, 0);
});

test('Warning events overtake queued Normal ones', async () => {
  const { clock, rec, reasons } = setup({ qps: 10, burst: 1, maxQueued: 100, maxInFlight: 1 });
  for (let i = 0; i < 3; i++) rec.emit({ kind: 'Node', name: `n${i}` }, 'Normal', 'RegisteredNode', `registered n${i}`);
  rec.emit({ kind: 'Node', name: 'n9' }, 'Warning', 'NodeNotReady', 'n9 heartbeat timeout');
  await rec.flush();
  await clock.advance(100);
  await rec.flush();
  assert.deepEqual(reasons(), ['RegisteredNode', 'NodeNotReady']);
});

test('beyond maxQueued, Normal events are dropped and counted; a Warning displaces a Normal', async () => {
  const { rec, log } = setup({ qps: 1, burst: 0.5, maxQueued: 3, maxInFlight: 1 });
  for (let i = 0; i < 5; i++) rec.emit({ kind: 'Node', name: `n${i}` }, 'Normal', 'RegisteredNode', `registered n${i}`);
  assert.equal(rec.queued, 3);
  rec.emit({ kind: 'Node', name: 'dead' }, 'Warning', 'NodeNotReady', 'dead');
  assert.equal(rec.queued, 3);
  await rec.flush();
  const warn = log.lines.find((l) => /dropped events/.test(l.msg));
  assert.equal(warn?.obj.dropped, 3);
});

function verdict(node: string): Parameters<EventRecorder['record']>[0] {
  return {
    metadata: { name: `${node}.1-1` },
    node,
    action: 'MarkUnknown',
    reason: 'HeartbeatTimeout',
    message: `${node} marked`,
    dryRun: false,
    evidence: { observedAt: '2026-11-29T12:00:00.000Z' },
  };
}

test('verdicts share the one pacer and overtake queued Normal events, in the order they were made', async () => {
  const { clock, client } = setup();
  const written: string[] = [];
  const sink = { create: async (v: { node: string }) => (written.push(`verdict ${v.node}`), v as never) };
  const create = client.events.create.bind(client.events);
  let n = 0;
  (client.events as { create: typeof create }).create = (obj) => {
    written.push(`event ${obj.reason}`);
    return create({ ...obj, metadata: { name: `ev-${++n}` } });
  };
  const rec = new EventRecorder({
    client,
    clock,
    log: recordingLogger(),
    limits: { qps: 10, burst: 1, maxQueued: 100, maxInFlight: 1 },
    verdicts: sink,
  });
  for (let i = 0; i < 3; i++) rec.emit({ kind: 'Node', name: `n${i}` }, 'Normal', 'RegisteredNode', `registered n${i}`);
  rec.record(verdict('d1'));
  rec.emit({ kind: 'Node', name: 'd1' }, 'Warning', 'NodeNotReady', 'd1 heartbeat timeout');
  rec.record(verdict('d2'));
  for (let i = 0; i < 4; i++) {
    await rec.flush();
    await clock.advance(100);
  }
  assert.deepEqual(written, ['event RegisteredNode', 'verdict d1', 'event NodeNotReady', 'verdict d2']);
});

test('without events (the dry-run controller) only verdicts are written; a full queue drops and counts them', async () => {
  const { clock, client, reasons } = setup();
  const written: string[] = [];
  const log = recordingLogger();
  const rec = new EventRecorder({
    client,
    clock,
    log,
    limits: { qps: 1, burst: 1, maxQueued: 2, maxInFlight: 1 },
    verdicts: { create: async (v) => (written.push(v.node), v as never) },
    writeEvents: false,
  });
  rec.emit({ kind: 'Node', name: 'x' }, 'Warning', 'NodeNotReady', 'x');
  // v1 goes out at once (the burst); v2 and v3 wait; v4 finds the queue full.
  for (const node of ['v1', 'v2', 'v3', 'v4']) rec.record(verdict(node));
  assert.equal(rec.queued, 2);
  await rec.flush();
  assert.equal(log.lines.find((l) => /dropped events/.test(l.msg))?.obj.droppedVerdicts, 1);
  await clock.advance(1_000);
  await rec.flush();
  await clock.advance(1_000);
  await rec.flush();
  assert.deepEqual(written, ['v1', 'v2', 'v3']);
  assert.deepEqual(reasons(), [], 'no event written');
});

test('the queue is bounded in bytes too: long messages are dropped before the count limit is reached', async () => {
  const { rec, log } = setup({ qps: 1, burst: 0.5, maxQueued: 1000, maxQueuedBytes: 5000, maxInFlight: 1 });
  const long = 'm'.repeat(1000);
  for (let i = 0; i < 10; i++) rec.emit({ kind: 'Node', name: `n${i}` }, 'Normal', 'NodeTainted', long);
  assert.ok(rec.queued >= 3 && rec.queued <= 4, `${rec.queued} events of ~1.1 KB queued within 5000 bytes`);
  // A Warning still gets in, displacing Normal ones until it fits.
  rec.emit({ kind: 'Node', name: 'dead' }, 'Warning', 'NodeNotReady', long);
  await rec.flush();
  assert.ok(Number(log.lines.find((l) => /dropped events/.test(l.msg))?.obj.dropped) >= 6);
});
