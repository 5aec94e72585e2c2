import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  runLeaderElection,
  validateLeaderElectionConfig,
  type LeaderElectionConfig,
} from '../../src/controller/leader-election.js';
import { LEADER_ELECTION_LEASE_NAME } from '../../src/controller/leader-elector.js';
import { InvalidError, ServiceUnavailableError } from '../../src/core/errors.js';
import type { Lease } from '../../src/core/lease.js';
import { silentLogger } from '../../src/core/logger.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { FakeClock, flush } from '../support/fake-clock.js';

const NS = 'shepherd-system';
const noJitter = { next: () => 0, uuid: () => 'uuid' };

interface Candidate {
  done: Promise<void>;
  log: string[];
  leading: () => AbortSignal | undefined;
  stop(): Promise<void>;
}

function config(identity: string, overrides: Partial<LeaderElectionConfig> = {}): LeaderElectionConfig {
  return { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, identity, ...overrides };
}

function candidate(
  client: FakeApiClient,
  clock: FakeClock,
  cfg: LeaderElectionConfig,
  onStarted?: (s: AbortSignal) => Promise<void>,
): Candidate {
  const ac = new AbortController();
  const log: string[] = [];
  let leadingSignal: AbortSignal | undefined;
  const done = runLeaderElection(
    { client, clock, log: silentLogger, config: cfg, random: noJitter },
    {
      onStartedLeading: (s) => {
        leadingSignal = s;
        log.push(`started@${clock.monotonic()}`);
        return onStarted?.(s);
      },
      onStoppedLeading: () => log.push(`stopped@${clock.monotonic()}`),
      onNewLeader: (id) => log.push(`leader=${id}`),
    },
    ac.signal,
  );
  return {
    done,
    log,
    leading: () => leadingSignal,
    stop: async () => {
      ac.abort();
      await flush();
      await done;
    },
  };
}

function lockLease(client: FakeApiClient): Lease | undefined {
  return client.data.leases.get(`${NS}/${LEADER_ELECTION_LEASE_NAME}`) as unknown as Lease | undefined;
}

/** Another process holding the lock, as the API would store it. */
function otherHolds(client: FakeApiClient, clock: FakeClock, renewTime = new Date(clock.now()).toISOString()): Lease {
  const cur = lockLease(client);
  return client.put<Lease>('leases', {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: {
      name: LEADER_ELECTION_LEASE_NAME,
      namespace: NS,
      uid: 'u',
      resourceVersion: '',
      creationTimestamp: '2026-11-29T12:00:00.000Z',
    },
    spec: {
      holderIdentity: 'other_1',
      leaseDurationSeconds: 15,
      acquireTime: renewTime,
      renewTime,
      leaseTransitions: cur?.spec.leaseTransitions ?? 0,
    },
  });
}

describe('leader election (client-go semantics on a Lease)', () => {
  it('acquires a free lock at once, renews every retryPeriod, and releases it on shutdown', async () => {
    const clock = new FakeClock();
    const client = new FakeApiClient({ now: () => clock.now() });
    const me = candidate(client, clock, config('host-a_1'));
    await flush();
    assert.deepEqual(me.log, ['leader=host-a_1', 'started@0']);
    const first = lockLease(client)!;
    assert.equal(first.metadata.namespace, NS);
    assert.deepEqual(first.spec, {
      holderIdentity: 'host-a_1',
      leaseDurationSeconds: 15,
      acquireTime: '2026-11-29T12:00:00.000Z',
      renewTime: '2026-11-29T12:00:00.000Z',
      leaseTransitions: 0,
    });
    await clock.advance(1_999);
    assert.equal(
      lockLease(client)!.metadata.resourceVersion,
      first.metadata.resourceVersion,
      'no renewal before retryPeriod',
    );
    await clock.advance(1);
    assert.equal(lockLease(client)!.spec.renewTime, '2026-11-29T12:00:02.000Z');
    assert.equal(lockLease(client)!.spec.acquireTime, first.spec.acquireTime);
    await clock.advance(2_000);
    assert.equal(lockLease(client)!.spec.renewTime, '2026-11-29T12:00:04.000Z');
    await me.stop();
    assert.equal(me.leading()?.aborted, true);
    assert.deepEqual(me.log, ['leader=host-a_1', 'started@0', 'stopped@4000']);
    assert.equal(lockLease(client)!.spec.leaseDurationSeconds, 1, 'released: a successor need not wait 15 s');
  });

  it('waits while another holder keeps renewing, however old its timestamps look to our clock', async () => {
    const clock = new FakeClock();
    const client = new FakeApiClient({ now: () => clock.now() });
    // The holder's clock is an hour behind ours: only the change of renewTime counts, never its value.
    const skewed = (): string => new Date(clock.now() - 3_600_000).toISOString();
    otherHolds(client, clock, skewed());
    const me = candidate(client, clock, config('host-a_1'));
    for (let t = 0; t < 60_000; t += 5_000) {
      await clock.advance(5_000);
      otherHolds(client, clock, skewed());
    }
    assert.deepEqual(me.log, ['leader=other_1']);
    assert.equal(lockLease(client)!.spec.holderIdentity, 'other_1');
    await me.stop();
    assert.deepEqual(me.log, ['leader=other_1'], 'a candidate that never led does not call onStoppedLeading');
  });

  it('takes over exactly leaseDuration after it last saw the record change, even if the record is from the future', async () => {
    const clock = new FakeClock();
    const client = new FakeApiClient({ now: () => clock.now() });
    otherHolds(client, clock, '2030-01-01T00:00:00.000Z');
    const me = candidate(client, clock, config('host-a_1', { retryPeriodMs: 1_000 }));
    await clock.advance(9_500);
    otherHolds(client, clock, '2030-01-01T00:00:10.000Z'); // a last renewal at t=9.5 s, first seen at our t=10 s poll
    await clock.advance(15_499);
    assert.deepEqual(me.log, ['leader=other_1']);
    await clock.advance(1);
    assert.deepEqual(me.log, ['leader=other_1', 'leader=host-a_1', 'started@25000']);
    const lease = lockLease(client)!;
    assert.equal(lease.spec.holderIdentity, 'host-a_1');
    assert.equal(lease.spec.leaseTransitions, 1);
    assert.equal(lease.spec.acquireTime, new Date(clock.now()).toISOString());
    await me.stop();
  });

  it('stops leading when no renewal succeeds within renewDeadline, without releasing', async () => {
    const clock = new FakeClock();
    const client = new FakeApiClient({ now: () => clock.now() });
    const me = candidate(client, clock, config('host-a_1'));
    await flush();
    client.failNext('leases', 'update', new ServiceUnavailableError('storage is unavailable'), 100);
    // Renewal round starts at t=2 s (retryPeriod after acquiring); it fails until t=12 s.
    await clock.advance(11_999);
    assert.equal(me.leading()?.aborted, false);
    assert.deepEqual(me.log, ['leader=host-a_1', 'started@0']);
    assert.equal(client.callsOf('leases', 'update').length, 5, 'retried every retryPeriod: t=2,4,6,8,10 s');
    await clock.advance(1);
    await me.done;
    assert.equal(me.leading()?.aborted, true);
    assert.deepEqual(me.log, ['leader=host-a_1', 'started@0', 'stopped@12000']);
    assert.equal(lockLease(client)!.spec.leaseDurationSeconds, 15, 'a lost lease is not touched');
  });

  it('a renewal that succeeds before the deadline keeps leadership', async () => {
    const clock = new FakeClock();
    const client = new FakeApiClient({ now: () => clock.now() });
    const me = candidate(client, clock, config('host-a_1'));
    await flush();
    client.failNext('leases', 'get', new ServiceUnavailableError('storage is unavailable'), 4);
    await clock.advance(30_000);
    assert.equal(me.leading()?.aborted, false);
    assert.equal(lockLease(client)!.spec.renewTime, new Date(clock.now()).toISOString());
    await me.stop();
  });

  it('loses a concurrent write on the resourceVersion (Conflict) and then respects the winner', async () => {
    const clock = new FakeClock();
    const client = new FakeApiClient({ now: () => clock.now() });
    otherHolds(client, clock);
    const me = candidate(client, clock, config('host-a_1'));
    await clock.advance(14_000);
    // Between our read at t=16 s and our write, a rival takes the expired lease.
    client.beforeCall = (call) => {
      if (call.op !== 'update') return;
      client.beforeCall = undefined;
      otherHolds(client, clock);
    };
    await clock.advance(2_000);
    assert.equal(client.callsOf('leases', 'update').length, 1);
    assert.equal(lockLease(client)!.spec.holderIdentity, 'other_1');
    assert.deepEqual(me.log, ['leader=other_1']);
    await clock.advance(14_000); // the rival's record was first seen at t=18 s: 15 s from then is t=33 s
    assert.deepEqual(me.log, ['leader=other_1']);
    await clock.advance(4_000);
    assert.deepEqual(me.log, ['leader=other_1', 'leader=host-a_1', 'started@34000']);
    await me.stop();
  });

  it('two candidates starting together: exactly one leads; the other takes over soon after a release', async () => {
    const clock = new FakeClock();
    const client = new FakeApiClient({ now: () => clock.now() });
    const a = candidate(client, clock, config('host-a_1'));
    const b = candidate(client, clock, config('host-b_1'));
    await clock.advance(10_000);
    const leaders = [a, b].filter((c) => c.leading() !== undefined);
    assert.equal(leaders.length, 1);
    assert.equal(lockLease(client)!.spec.holderIdentity, 'host-a_1');
    await a.stop();
    assert.equal(b.leading(), undefined);
    // b sees the released record at its next retry, then honours its 1 s duration: far sooner than 15 s.
    await clock.advance(4_000);
    assert.notEqual(b.leading(), undefined);
    assert.equal(lockLease(client)!.spec.holderIdentity, 'host-b_1');
    assert.equal(lockLease(client)!.spec.leaseTransitions, 1);
    await b.stop();
  });

  it('a failing leader task gives leadership up and releases the lease', async () => {
    const clock = new FakeClock();
    const client = new FakeApiClient({ now: () => clock.now() });
    const me = candidate(client, clock, config('host-a_1'), async () => {
      throw new Error('controller crashed');
    });
    await flush();
    await me.done;
    assert.deepEqual(me.log, ['leader=host-a_1', 'started@0', 'stopped@0']);
    assert.equal(lockLease(client)!.spec.leaseDurationSeconds, 1);
  });

  it('refuses settings client-go refuses', () => {
    assert.doesNotThrow(() => validateLeaderElectionConfig(config('x')));
    assert.throws(() => validateLeaderElectionConfig(config('x', { renewDeadlineMs: 15_000 })), InvalidError);
    assert.throws(
      () => validateLeaderElectionConfig(config('x', { renewDeadlineMs: 2_400 })),
      /1.2 × --leader-elect-retry-period/,
    );
    assert.throws(() => validateLeaderElectionConfig(config('')), InvalidError);
  });
});
