import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LightFleet, type RenewPhase, type RequestSink } from '../../../src/fleet/light/light-fleet.js';
import { RequestWriter } from '../../../src/fleet/light/light-requests.js';
import { newLightStats, opFigures } from '../../../src/fleet/light/light-stats.js';

interface Sent {
  tag: number;
  line: string;
  body: { metadata?: { resourceVersion?: string }; spec?: { renewTime?: string } } | undefined;
  sentAt: number;
}

class Recorder implements RequestSink {
  sent: Sent[] = [];
  send(tag: number, text: string, sentAt: number): void {
    const end = text.indexOf('\r\n\r\n');
    const raw = text.slice(end + 4);
    this.sent.push({
      tag,
      line: text.slice(0, text.indexOf(' HTTP/1.1')),
      body: raw ? JSON.parse(raw) : undefined,
      sentAt,
    });
  }
  take(): Sent[] {
    const s = this.sent;
    this.sent = [];
    return s;
  }
}

const rv = (v: string) => Buffer.from(`{"metadata":{"name":"n","resourceVersion":"${v}"}}`);

/** A seeded uniform source in [0, 1) (mulberry32), so the random phases are the same each run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Most tests follow one node's chain from its registration: the `start` phase puts its first renewal at +10 s. */
function setup(
  nodes = 1,
  renewPhase: RenewPhase = 'start',
  random?: () => number,
): {
  fleet: LightFleet;
  sink: Recorder;
  clock: { now: number };
  stats: ReturnType<typeof newLightStats>;
} {
  const clock = { now: 0 };
  const stats = newLightStats();
  const fleet = new LightFleet(
    { zones: [{ name: 'zone-a', nodes }], prefix: 'f', leaseDurationSeconds: 40, statusReportMs: 60_000, renewPhase },
    {
      writer: new RequestWriter({ host: 'h:1', token: undefined, leaseSeconds: 40, version: 'v' }),
      stats,
      monotonic: () => clock.now,
      wallTime: () => new Date(Date.UTC(2026, 11, 1) + clock.now).toISOString(),
      random,
    },
  );
  const sink = new Recorder();
  fleet.connect(sink);
  return { fleet, sink, clock, stats };
}

/** Answers one request as the server would. */
function answer(fleet: LightFleet, s: Sent, status: number, body: Buffer = Buffer.from('{}')): void {
  fleet.onResponse(s.tag, status, body, 0, body.length, s.sentAt);
}

function one(sink: Recorder): Sent {
  const sent = sink.take();
  assert.equal(sent.length, 1, `one request, got ${sent.map((s) => s.line).join(', ')}`);
  return sent[0] as Sent;
}

/** Registers node 0 (created fresh) and returns the renewal chain's starting point. */
function register(f: ReturnType<typeof setup>): void {
  f.fleet.startNodes(f.fleet.nodes);
  f.fleet.tick(10);
  const create = one(f.sink);
  assert.equal(create.line, 'POST /api/v1/nodes');
  answer(f.fleet, create, 201, rv('1'));
  const lease = one(f.sink);
  assert.equal(lease.line, 'POST /api/v1/leases');
  answer(f.fleet, lease, 201, rv('2'));
  const status = one(f.sink);
  assert.equal(status.line, 'PUT /api/v1/nodes/f-zone-a-0/status');
  assert.equal(status.body?.metadata?.resourceVersion, '1');
  answer(f.fleet, status, 200, rv('3'));
}

/** Starts every node in one tick and answers its registration (node, lease, status) at once, at time 0. */
function registerAll(f: ReturnType<typeof setup>): void {
  f.fleet.startNodes(f.fleet.nodes);
  f.fleet.tick(f.fleet.nodes.length);
  for (let k = 0; k < 3; k++) for (const s of f.sink.take()) answer(f.fleet, s, s.line.startsWith('POST') ? 201 : 200);
}

/** Ticks every 10 ms up to untilMs, answering each renewal when sent: each node's renewal send times. */
function renewalTimes(f: ReturnType<typeof setup>, untilMs: number): Map<string, number[]> {
  const times = new Map<string, number[]>();
  for (let t = f.clock.now + 10; t <= untilMs; t += 10) {
    f.clock.now = t;
    f.fleet.tick(0);
    for (const s of f.sink.take()) {
      assert.match(s.line, /^PUT \/api\/v1\/leases\//);
      const name = s.line.slice(s.line.lastIndexOf('/') + 1);
      times.set(name, [...(times.get(name) ?? []), t]);
      answer(f.fleet, s, 200, rv(String(t)));
    }
  }
  return times;
}

describe('LightFleet', () => {
  it('random phase: the first renewals of nodes registered together spread evenly over the interval', () => {
    const f = setup(1000, 'random', seeded(19));
    registerAll(f);
    const times = renewalTimes(f, 20_000);
    assert.equal(times.size, 1000, 'every node renewed');
    const buckets = new Array<number>(10).fill(0);
    for (const [name, [first]] of times) {
      assert.ok(first !== undefined && first >= 10 && first <= 10_000, `${name} first renewed at ${first}`);
      buckets[Math.min(9, Math.floor((first - 10) / 1000))]!++;
    }
    // 100 expected per second of the 10 s interval; the old schedule put all 1,000 at 10 s.
    for (const [k, n] of buckets.entries()) assert.ok(n >= 70 && n <= 130, `${n} first renewals in second ${k}`);
    for (const [name, t] of times)
      assert.deepEqual(t.slice(1), [t[0]! + 10_000], `${name} then renews every interval after its last send`);
  });

  it('random phase: the first renewal comes at registration + random × interval, drawn again on re-registering', () => {
    const f = setup(1, 'random', () => 0.25);
    register(f);
    f.clock.now = 2_490;
    f.fleet.tick(0);
    assert.deepEqual(f.sink.take(), [], 'nothing before the phase');
    f.clock.now = 2_500;
    f.fleet.tick(0);
    answer(f.fleet, one(f.sink), 200, rv('5'));
    f.clock.now = 12_500;
    f.fleet.tick(0);
    const second = one(f.sink);
    assert.equal(second.body?.metadata?.resourceVersion, '5');
    answer(f.fleet, second, 404);
    answer(f.fleet, one(f.sink), 201, rv('6'));
    answer(f.fleet, one(f.sink), 201, rv('7'));
    answer(f.fleet, one(f.sink), 200, rv('8'));
    f.clock.now = 14_990;
    f.fleet.tick(0);
    assert.deepEqual(f.sink.take(), [], 'registered again at 12.5 s: nothing before its new phase');
    f.clock.now = 15_000;
    f.fleet.tick(0);
    assert.equal(one(f.sink).body?.metadata?.resourceVersion, '7');
  });

  it('start phase: nodes registered together first renew together, one interval later (the quantised bursts)', () => {
    const f = setup(100, 'start', () => assert.fail('the start phase draws no random phase'));
    registerAll(f);
    const times = renewalTimes(f, 20_000);
    assert.equal(times.size, 100);
    for (const [name, t] of times) assert.deepEqual(t, [10_000, 20_000], name);
  });

  it('registers, then renews every quarter lease duration with the resourceVersion of its last write', () => {
    const f = setup();
    register(f);
    f.clock.now = 9_990;
    f.fleet.tick(0);
    assert.deepEqual(f.sink.take(), [], 'nothing before the interval');
    f.clock.now = 10_000;
    f.fleet.tick(0);
    const first = one(f.sink);
    assert.equal(first.line, 'PUT /api/v1/leases/f-zone-a-0');
    assert.equal(first.body?.metadata?.resourceVersion, '2');
    assert.equal(first.body?.spec?.renewTime, '2026-12-01T00:00:10.000Z');
    f.clock.now = 10_004;
    answer(f.fleet, first, 200, rv('5'));
    f.clock.now = 20_000;
    f.fleet.tick(0);
    assert.equal(one(f.sink).body?.metadata?.resourceVersion, '5');
    assert.equal(f.stats.total.requests.renewals, 1);
    assert.equal(f.stats.total.requests.renewalLatency.max, 4);
    assert.deepEqual(
      opFigures(f.stats.total).map((o) => `${o.op}:${o.count}`),
      ['node-create:1', 'status:1', 'lease-create:1', 'renew:1'],
    );
  });

  it('re-reads the lease only after a Conflict and renews at once with what it read', () => {
    const f = setup();
    register(f);
    f.clock.now = 10_000;
    f.fleet.tick(0);
    answer(f.fleet, one(f.sink), 409);
    const get = one(f.sink);
    assert.equal(get.line, 'GET /api/v1/leases/f-zone-a-0');
    answer(f.fleet, get, 200, rv('40'));
    const retry = one(f.sink);
    assert.equal(retry.line, 'PUT /api/v1/leases/f-zone-a-0');
    assert.equal(retry.body?.metadata?.resourceVersion, '40');
    assert.equal(f.stats.total.requests.conflicts, 1);
    assert.equal(f.stats.total.requests.errors, 0);
  });

  it('adopts a node and lease a previous run left (AlreadyExists), reading their resourceVersions', () => {
    const f = setup();
    f.fleet.startNodes(f.fleet.nodes);
    f.fleet.tick(1);
    answer(f.fleet, one(f.sink), 409);
    const getNode = one(f.sink);
    assert.equal(getNode.line, 'GET /api/v1/nodes/f-zone-a-0');
    answer(f.fleet, getNode, 200, rv('11'));
    answer(f.fleet, one(f.sink), 409);
    const getLease = one(f.sink);
    assert.equal(getLease.line, 'GET /api/v1/leases/f-zone-a-0');
    answer(f.fleet, getLease, 200, rv('12'));
    assert.equal(one(f.sink).body?.metadata?.resourceVersion, '11', 'status at the read node version');
    f.clock.now = 10_000;
    f.fleet.tick(0);
    assert.equal(one(f.sink).body?.metadata?.resourceVersion, '12');
  });

  it('retries a failed renewal a second later and counts the error', () => {
    const f = setup();
    register(f);
    f.clock.now = 10_000;
    f.fleet.tick(0);
    const put = one(f.sink);
    f.fleet.onFailure(put.tag, 'ConnectionLost');
    assert.deepEqual(f.stats.total.requests.errorsByReason, new Map([['ConnectionLost', 1]]));
    f.clock.now = 10_990;
    f.fleet.tick(0);
    assert.deepEqual(f.sink.take(), []);
    f.clock.now = 11_000;
    f.fleet.tick(0);
    assert.equal(one(f.sink).line, 'PUT /api/v1/leases/f-zone-a-0');
  });

  it('a stopped node sends nothing and ignores answers still on their way; restarted, it registers again', () => {
    const f = setup(2);
    f.fleet.startNodes(f.fleet.nodes);
    f.fleet.tick(1);
    const first = one(f.sink);
    f.fleet.stopNodes([f.fleet.nodes[0]!]);
    answer(f.fleet, first, 201, rv('1'));
    assert.deepEqual(f.sink.take(), [], 'the stopped node does not go on');
    assert.equal(f.fleet.isRunning('f-zone-a-0'), false);
    f.fleet.tick(5);
    assert.equal(one(f.sink).line, 'POST /api/v1/nodes', 'the second node starts');
    f.fleet.startNodes([f.fleet.nodes[0]!]);
    f.fleet.tick(5);
    const again = one(f.sink);
    assert.equal(again.line, 'POST /api/v1/nodes');
    answer(f.fleet, first, 201, rv('1'));
    assert.deepEqual(f.sink.take(), [], 'an answer to the old run is still ignored');
    answer(f.fleet, again, 201, rv('1'));
    assert.equal(one(f.sink).line, 'POST /api/v1/leases');
  });

  it('starts at most the given number of queued nodes per tick', () => {
    const f = setup(5);
    f.fleet.startNodes(f.fleet.nodes);
    f.fleet.tick(2);
    assert.equal(f.sink.take().length, 2);
    assert.equal(f.fleet.queuedStarts, 3);
    assert.deepEqual(
      f.fleet.counts().map((z) => [z.running, z.queued]),
      [[2, 3]],
    );
  });

  it('posts status again once the report interval has passed, with its renewal', () => {
    const f = setup();
    register(f);
    for (let t = 10_000; t < 60_000; t += 10_000) {
      f.clock.now = t;
      f.fleet.tick(0);
      answer(f.fleet, one(f.sink), 200, rv(String(t)));
    }
    f.clock.now = 60_000;
    f.fleet.tick(0);
    const sent = f.sink.take().map((s) => s.line);
    assert.deepEqual(sent, ['PUT /api/v1/nodes/f-zone-a-0/status', 'PUT /api/v1/leases/f-zone-a-0']);
  });
});
