import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Agent, defaultNodeName, DuplicateHolderError, validateAgentConfig } from '../../src/agent/agent.js';
import { newNodeLease } from '../../src/agent/lease-renewer.js';
import { observeWindowMs } from '../../src/agent/registration.js';
import type { Lease } from '../../src/core/lease.js';
import { recordingLogger, silentLogger } from '../../src/core/logger.js';
import type { Node } from '../../src/core/node.js';
import { flush } from '../support/fake-clock.js';
import { agentConfig, FakeHost, fakes, fixedRandom, unreachable } from './agent-fixtures.js';

function setup() {
  const { clock, client } = fakes();
  const log = recordingLogger();
  const agent = new Agent({ client, clock, random: fixedRandom(0), log, config: agentConfig(), host: new FakeHost() });
  return { clock, client, log, agent };
}

describe('Agent', () => {
  it('registers, renews every 10 s, posts status, and reports stats', async () => {
    const t = setup();
    const ac = new AbortController();
    const running = t.agent.run(ac.signal);
    await t.clock.advance(60_000);
    const stats = t.agent.stats();
    assert.equal(stats.renewals, 6);
    assert.equal(stats.renewalFailures, 0);
    assert.equal(stats.lastRenewalLatencyMs, 0);
    assert.equal(stats.statusPosts, 1);
    const node = t.client.data.nodes.get('node-1') as unknown as Node;
    assert.equal(node.status.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    ac.abort();
    await running;
  });

  it('on shutdown resolves, stops its loops, and leaves the Node and the Lease', async () => {
    const t = setup();
    const ac = new AbortController();
    const running = t.agent.run(ac.signal);
    await t.clock.advance(25_000);
    ac.abort();
    await running;
    assert.equal(t.clock.pendingSleepers, 0);
    const calls = t.client.calls.length;
    await t.clock.advance(60_000);
    assert.equal(t.client.calls.length, calls);
    assert.equal(t.client.callsOf('nodes', 'delete').length + t.client.callsOf('leases', 'delete').length, 0);
    assert.ok(t.client.data.nodes.has('node-1') && t.client.data.leases.has('node-lease/node-1'));
  });

  it('resolves when stopped while registration is still retrying', async () => {
    const t = setup();
    t.client.failNext('leases', 'get', unreachable(), 1000);
    const ac = new AbortController();
    const running = t.agent.run(ac.signal);
    await t.clock.advance(30_000);
    const tries = t.client.callsOf('leases', 'get').length;
    assert.ok(tries >= 3, `registration is still retrying (${tries} tries so far)`);
    assert.equal(t.clock.pendingSleepers, 1, 'waiting out a backoff when stopped');
    ac.abort();
    // Resolves (not rejects) at once: the abort cuts the backoff short, no fake time has to pass.
    const outcome = await Promise.race([
      running.then(
        () => 'resolved',
        (err: unknown) => `rejected: ${String(err)}`,
      ),
      flush().then(() => 'still running'),
    ]);
    assert.equal(outcome, 'resolved');
    assert.equal(t.clock.pendingSleepers, 0);
    const calls = t.client.calls.length;
    await t.clock.advance(60_000);
    assert.equal(t.client.calls.length, calls, 'no retry after the stop');
    assert.equal(t.client.data.nodes.size + t.client.data.leases.size, 0, 'nothing was registered');
    assert.equal(t.agent.stats().renewals, 0);
  });

  it('keeps renewing across an API outage longer than the backoff cap, and re-posts status on recovery', async () => {
    const t = setup();
    const ac = new AbortController();
    const running = t.agent.run(ac.signal);
    await t.clock.advance(5_000);
    t.client.failNext('leases', 'update', unreachable(), 5);
    t.client.failNext('leases', 'get', unreachable(), 10);
    await t.clock.advance(60_000);
    const stats = t.agent.stats();
    assert.equal(stats.renewalFailures, 15);
    assert.ok(stats.renewals >= 2, `renewals ${stats.renewals}`);
    assert.equal(stats.statusPosts, 2, 'the recovery forces one status post');
    ac.abort();
    await running;
  });

  it('run() rejects with DuplicateHolderError when another agent renews the lease', async () => {
    const t = setup();
    const renew = (): void => {
      const l = newNodeLease('node-1', 40, t.clock.now());
      t.client.put('leases', {
        ...l,
        apiVersion: 'coordination/v1',
        kind: 'Lease',
        spec: { ...l.spec, holderIdentity: 'other' },
      } as Lease);
    };
    renew();
    const settled = t.agent.run(new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    await t.clock.advance(5_000);
    renew();
    await t.clock.advance(observeWindowMs(40));
    const err = await settled;
    assert.ok(err instanceof DuplicateHolderError, String(err));
    assert.match(err.message, /held by other, which renewed it within the last 40s/);
  });
});

describe('defaultNodeName', () => {
  it('lowercases a valid host name and drops a trailing dot', () => {
    assert.equal(defaultNodeName('Web-01.Example.COM'), 'web-01.example.com');
    assert.equal(defaultNodeName('host-1.'), 'host-1');
  });

  it('refuses a host name the API would refuse, saying what to do', () => {
    assert.throws(
      () => defaultNodeName('my_host'),
      /the host name "my_host" is not a valid node name .*pass --node-name/,
    );
    assert.throws(() => defaultNodeName(''), /pass --node-name/);
  });
});

describe('validateAgentConfig', () => {
  it('accepts the defaults and refuses bad names, labels and durations', () => {
    validateAgentConfig(agentConfig());
    assert.throws(() => validateAgentConfig(agentConfig({ nodeName: 'Node_1' })), /--node-name "Node_1"/);
    assert.throws(() => validateAgentConfig(agentConfig({ labels: { 'bad key!': 'x' } })), /--labels bad key!=x/);
    assert.throws(() => validateAgentConfig(agentConfig({ zone: 'has space' })), /--zone "has space"/);
    assert.throws(() => validateAgentConfig(agentConfig({ leaseDurationSeconds: 0.5 })), /--lease-duration/);
    assert.throws(
      () =>
        new Agent({
          client: fakes().client,
          clock: fakes().clock,
          random: fixedRandom(0),
          log: silentLogger,
          config: agentConfig({ nodeName: '' }),
        }),
      /invalid agent configuration/,
    );
  });
});
