import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LeaseRenewer, newNodeLease } from '../../src/agent/lease-renewer.js';
import { InternalError, TooManyRequestsError } from '../../src/core/errors.js';
import type { Lease } from '../../src/core/lease.js';
import { recordingLogger, type RecordedLine } from '../../src/core/logger.js';
import type { Random } from '../../src/core/random.js';
import type { Op } from '../support/fake-api-store.js';
import { fakes, fixedRandom, unreachable } from './agent-fixtures.js';

function setup(random: Random = fixedRandom(0)) {
  const { clock, client } = fakes();
  const log = recordingLogger();
  let recovered = 0;
  const lease = client.put<Lease>('leases', {
    ...newNodeLease('node-1', 40, clock.now()),
    apiVersion: 'coordination/v1',
    kind: 'Lease',
  } as Lease);
  const renewer = new LeaseRenewer({
    client,
    clock,
    random,
    log,
    config: { nodeName: 'node-1', leaseDurationSeconds: 40 },
    onRecovered: () => recovered++,
  });
  renewer.adopt(lease);
  const ops: { op: Op; at: number }[] = [];
  client.beforeCall = (c) => {
    if (c.resource === 'leases') ops.push({ op: c.op, at: clock.monotonic() });
  };
  const ac = new AbortController();
  const running = renewer.run(ac.signal);
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  return { clock, client, log, renewer, ops, stop, recoveredCount: () => recovered };
}

const at = (ops: { op: Op; at: number }[], op: Op): number[] => ops.filter((o) => o.op === op).map((o) => o.at);
const warnings = (lines: RecordedLine[]): RecordedLine[] => lines.filter((l) => l.level === 'warn');

describe('LeaseRenewer', () => {
  it('renews every 10 s with the shortest jitter, one PUT and no GET a round', async () => {
    const t = setup(fixedRandom(0));
    await t.clock.advance(35_000);
    assert.deepEqual(at(t.ops, 'update'), [10_000, 20_000, 30_000]);
    assert.equal(at(t.ops, 'get').length, 0);
    const stored = t.client.data.leases.get('node-lease/node-1') as unknown as Lease;
    assert.equal(stored.spec.renewTime, new Date(t.clock.now() - 5_000).toISOString());
    assert.equal(t.renewer.stats().renewals, 3);
    await t.stop();
  });

  it('keeps each wait within 10.0–10.4 s (jitter 0–4 %)', async () => {
    const values = [0, 0.5, 0.999999];
    let i = 0;
    const t = setup({ next: () => values[i++ % values.length] as number, uuid: () => 'u' });
    await t.clock.advance(31_000);
    const times = at(t.ops, 'update');
    const gaps = times.map((x, k) => x - (k === 0 ? 0 : (times[k - 1] as number)));
    assert.equal(gaps.length, 3);
    assert.equal(gaps[0], 10_000);
    assert.equal(gaps[1], 10_200);
    assert.ok((gaps[2] as number) > 10_399.99, `longest wait ${gaps[2]}`);
    for (const g of gaps) assert.ok(g >= 10_000 && g < 10_400);
    await t.stop();
  });

  it('counts the wait from the end of the last renewal, not its start (sliding)', async () => {
    const t = setup();
    t.client.failNext('leases', 'update', unreachable(), 5);
    t.client.failNext('leases', 'get', unreachable(), 2);
    await t.clock.advance(21_000);
    // Round 1 starts at 10 s, backs off 200 + 400 ms, renews at 10.6 s; round 2 is 10 s after that.
    assert.deepEqual(at(t.ops, 'update'), [10_000, 10_000, 10_000, 10_000, 10_000, 10_600, 20_600]);
    await t.stop();
  });

  it('on 409 re-GETs exactly once, retries, succeeds, and counts no failure', async () => {
    const t = setup();
    const lease = t.client.data.leases.get('node-lease/node-1') as unknown as Lease;
    t.client.put('leases', { ...lease, metadata: { ...lease.metadata, labels: { edited: 'by-hand' } } });
    await t.clock.advance(10_000);
    assert.deepEqual(
      t.ops.map((o) => o.op),
      ['update', 'get', 'update'],
    );
    assert.deepEqual(t.renewer.stats().renewalFailures, 0);
    assert.equal(t.renewer.stats().renewals, 1);
    const stored = t.client.data.leases.get('node-lease/node-1') as unknown as Lease;
    assert.equal(stored.spec.renewTime, new Date(t.clock.now()).toISOString());
    assert.deepEqual(stored.metadata.labels, { edited: 'by-hand' });
    assert.equal(warnings(t.log.lines).length, 0);
    await t.stop();
  });

  it('makes 5 attempts a round, then GETs and tries 5 more, then waits for the next round', async () => {
    const t = setup();
    t.client.failNext('leases', 'update', new InternalError('database is locked'), 10);
    await t.clock.advance(10_000);
    assert.deepEqual(
      t.ops.map((o) => o.op),
      [...Array(5).fill('update'), 'get', ...Array(5).fill('update')],
    );
    assert.equal(t.renewer.stats().renewalFailures, 10);
    assert.equal(t.renewer.stats().renewals, 0);
    await t.clock.advance(10_000);
    assert.equal(t.renewer.stats().renewals, 1);
    assert.equal(t.ops.length, 12);
    await t.stop();
  });

  it('while the API is unreachable backs off 200, 400, … 6400, 7000, 7000 ms, logging only the outage and the recovery', async () => {
    const t = setup();
    t.client.failNext('leases', 'update', unreachable(), 5);
    t.client.failNext('leases', 'get', unreachable(), 8);
    await t.clock.advance(10_000 + 35_000);
    const gets = at(t.ops, 'get');
    assert.equal(gets.length, 9);
    assert.deepEqual(
      gets.slice(1).map((x, k) => x - (gets[k] as number)),
      [200, 400, 800, 1600, 3200, 6400, 7000, 7000],
    );
    assert.equal(t.renewer.stats().renewals, 1);
    assert.equal(t.renewer.stats().renewalFailures, 13);
    assert.deepEqual(
      t.log.lines.map((l) => l.level),
      ['warn', 'info'],
    );
    assert.match(t.log.lines[0]?.msg ?? '', /renewing lease node-lease\/node-1 failed: cannot reach the shepherd API/);
    assert.match(t.log.lines[1]?.msg ?? '', /recovered after 13 failed attempts/);
    assert.equal(t.recoveredCount(), 1);
    await t.stop();
  });

  it('honours Retry-After of a 429 on the update and on the GET', async () => {
    const t = setup();
    t.client.failNext('leases', 'update', new TooManyRequestsError('too many requests', 3));
    await t.clock.advance(10_000 + 3_000);
    assert.deepEqual(at(t.ops, 'update'), [10_000, 13_000]);

    t.client.failNext('leases', 'update', unreachable(), 5);
    t.client.failNext('leases', 'get', new TooManyRequestsError('too many requests', 10));
    await t.clock.advance(10_000 + 10_000);
    const gets = at(t.ops, 'get');
    assert.deepEqual(gets, [23_000, 33_000]);
    await t.stop();
  });

  it('re-creates a lease deleted under it (its node was deleted) without waiting', async () => {
    const t = setup();
    t.client.remove('leases', 'node-1');
    await t.clock.advance(10_000);
    assert.deepEqual(
      t.ops.map((o) => o.op),
      ['update', 'get', 'create'],
    );
    const stored = t.client.data.leases.get('node-lease/node-1') as unknown as Lease;
    assert.equal(stored.spec.holderIdentity, 'node-1');
    assert.equal(t.renewer.stats().renewals, 1);
    await t.clock.advance(10_000);
    assert.deepEqual(at(t.ops, 'update'), [10_000, 20_000]);
    await t.stop();
  });

  it('stops at once when the signal aborts, leaving no timer behind', async () => {
    const t = setup();
    await t.clock.advance(15_000);
    await t.stop();
    assert.equal(t.clock.pendingSleepers, 0);
  });
});

describe('LeaseRenewer twin detection', () => {
  it('logs one error when a 409 reveals a renewTime it did not write (a second agent with its name)', async () => {
    const t = setup();
    for (let round = 1; round <= 3; round++) {
      const lease = t.client.data.leases.get('node-lease/node-1') as unknown as Lease;
      t.client.put('leases', {
        ...lease,
        spec: { ...lease.spec, renewTime: new Date(t.clock.now() + 1).toISOString() },
      });
      await t.clock.advance(10_000);
    }
    const errors = t.log.lines.filter((l) => l.level === 'error');
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.msg ?? '', /renewed by someone else \(holder node-1\).*two agents with one node name/);
    assert.equal(t.renewer.stats().renewals, 3, 'it still renews: going silent would get the node tainted');
    await t.stop();
  });

  it('stays quiet on a 409 from a label edit', async () => {
    const t = setup();
    const lease = t.client.data.leases.get('node-lease/node-1') as unknown as Lease;
    t.client.put('leases', { ...lease, metadata: { ...lease.metadata, labels: { a: 'b' } } });
    await t.clock.advance(10_000);
    assert.equal(t.log.lines.length, 0);
    await t.stop();
  });
});
