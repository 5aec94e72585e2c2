import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newNodeLease } from '../../src/agent/lease-renewer.js';
import {
  DuplicateHolderError,
  observeWindowMs,
  register,
  type RegistrationDeps,
} from '../../src/agent/registration.js';
import type { Lease } from '../../src/core/lease.js';
import { recordingLogger } from '../../src/core/logger.js';
import type { Node } from '../../src/core/node.js';
import type { FakeApiClient } from '../support/fake-api-client.js';
import type { FakeClock } from '../support/fake-clock.js';
import { agentConfig, FakeHost, fakes, unreachable } from './agent-fixtures.js';

function setup() {
  const { clock, client } = fakes();
  const log = recordingLogger();
  const deps: RegistrationDeps = { client, clock, log, config: agentConfig(), host: new FakeHost() };
  return { clock, client, log, deps };
}

function putLease(client: FakeApiClient, holder: string, renewedAtMs: number): Lease {
  const lease = newNodeLease('node-1', 40, renewedAtMs);
  return client.put<Lease>('leases', {
    ...lease,
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    spec: { ...lease.spec, holderIdentity: holder },
  } as Lease);
}

/** Another live agent: renews the lease every 10 s on the fake clock. */
function otherAgent(clock: FakeClock, client: FakeApiClient, holder: string): AbortController {
  const ac = new AbortController();
  void (async () => {
    try {
      for (;;) {
        await clock.sleep(10_000, ac.signal);
        putLease(client, holder, clock.now());
      }
    } catch {
      // stopped
    }
  })();
  return ac;
}

const lease = (client: FakeApiClient): Lease => client.data.leases.get('node-lease/node-1') as unknown as Lease;
const node = (client: FakeApiClient): Node => client.data.nodes.get('node-1') as unknown as Node;

describe('register', () => {
  it('creates the node with topology labels, nodeInfo and addresses, and a lease we hold', async () => {
    const t = setup();
    const result = await register(t.deps, new AbortController().signal);
    const n = node(t.client);
    assert.deepEqual(n.metadata.labels, {
      team: 'infra',
      'topology.kubernetes.io/zone': 'zone-a',
      'topology.kubernetes.io/region': 'region-1',
    });
    assert.deepEqual(n.status.nodeInfo, { agentVersion: '0.1.0-test', hostname: 'host-1', os: 'linux', arch: 'amd64' });
    assert.deepEqual(
      n.status.addresses?.map((a) => a.type),
      ['InternalIP', 'Hostname'],
    );
    const now = new Date(t.clock.now()).toISOString();
    assert.deepEqual(lease(t.client).spec, {
      holderIdentity: 'node-1',
      leaseDurationSeconds: 40,
      acquireTime: now,
      renewTime: now,
    });
    assert.equal(result.lease.metadata.resourceVersion, lease(t.client).metadata.resourceVersion);
  });

  it('adopts an existing node, adding our labels with one PUT and keeping the others', async () => {
    const t = setup();
    t.client.put('nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { owner: 'ops', 'topology.kubernetes.io/zone': 'old' } },
      spec: {},
      status: {},
    });
    await register(t.deps, new AbortController().signal);
    assert.deepEqual(node(t.client).metadata.labels, {
      owner: 'ops',
      team: 'infra',
      'topology.kubernetes.io/zone': 'zone-a',
      'topology.kubernetes.io/region': 'region-1',
    });
    assert.equal(t.client.callsOf('nodes', 'update').length, 1);
  });

  it('adopts an existing node whose labels are already right without writing it', async () => {
    const t = setup();
    const labels = {
      team: 'infra',
      'topology.kubernetes.io/zone': 'zone-a',
      'topology.kubernetes.io/region': 'region-1',
      extra: 'x',
    };
    t.client.put('nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels },
      spec: {},
      status: {},
    });
    await register(t.deps, new AbortController().signal);
    assert.deepEqual(
      t.client.callsOf('nodes').map((c) => c.op),
      ['create', 'get'],
    );
  });

  it('refuses to start when another holder still renews the lease, and writes nothing', async () => {
    const t = setup();
    putLease(t.client, 'other-host', t.clock.now() - 3_000);
    const other = otherAgent(t.clock, t.client, 'other-host');
    const result = register(t.deps, new AbortController().signal);
    const settled = result.then(
      () => undefined,
      (e: unknown) => e,
    );
    await t.clock.advance(observeWindowMs(40));
    const err = await settled;
    assert.ok(err instanceof DuplicateHolderError);
    assert.equal(
      err.message,
      "lease node-lease/node-1 is held by other-host, which renewed it within the last 40s: two agents with one node name would hide each other's death; stop the other agent or pick another --node-name",
    );
    assert.equal(t.client.callsOf('nodes').length, 0);
    assert.equal(t.client.callsOf('leases', 'update').length + t.client.callsOf('leases', 'create').length, 0);
    other.abort();
  });

  it('refuses a live twin that runs with our own node name (same holderIdentity)', async () => {
    const t = setup();
    putLease(t.client, 'node-1', t.clock.now());
    const other = otherAgent(t.clock, t.client, 'node-1');
    const settled = register(t.deps, new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    await t.clock.advance(observeWindowMs(40));
    assert.ok((await settled) instanceof DuplicateHolderError);
    other.abort();
  });

  it('adopts its own stale lease at once (restart after a long stop)', async () => {
    const t = setup();
    const old = putLease(t.client, 'node-1', t.clock.now() - 5 * 60_000);
    await register(t.deps, new AbortController().signal);
    const now = new Date(t.clock.now()).toISOString();
    const l = lease(t.client);
    assert.equal(l.spec.holderIdentity, 'node-1');
    assert.equal(l.spec.renewTime, now);
    assert.equal(l.spec.acquireTime, now);
    assert.notEqual(l.metadata.resourceVersion, old.metadata.resourceVersion);
    assert.equal(l.spec.leaseTransitions, undefined, 'same holder: not a transition');
    assert.equal(t.clock.monotonic(), 0, 'no observation wait for a stale lease');
  });

  it("takes over another holder's stale lease and counts a transition", async () => {
    const t = setup();
    putLease(t.client, 'retired-host', t.clock.now() - 41_000);
    await register(t.deps, new AbortController().signal);
    assert.equal(lease(t.client).spec.holderIdentity, 'node-1');
    assert.equal(lease(t.client).spec.leaseTransitions, 1);
  });

  it('adopts a recently renewed lease that nobody renews any more, after one observation window', async () => {
    const t = setup();
    putLease(t.client, 'node-1', t.clock.now() - 2_000);
    let done = false;
    const result = register(t.deps, new AbortController().signal).then(() => (done = true));
    await t.clock.advance(observeWindowMs(40) - 1);
    assert.equal(done, false);
    await t.clock.advance(1);
    await result;
    assert.equal(observeWindowMs(40), 11_400);
    assert.equal(lease(t.client).spec.renewTime, new Date(t.clock.now()).toISOString());
  });

  it('retries forever while the API is unreachable, with one log line for the outage and one for the recovery', async () => {
    const t = setup();
    t.client.failNext('leases', 'get', unreachable(), 3);
    t.client.failNext('nodes', 'create', unreachable(), 4);
    let done = false;
    const result = register(t.deps, new AbortController().signal).then(() => (done = true));
    await t.clock.advance(200 + 400 + 800 + 1600 + 3200 + 6400 + 7000 - 1);
    assert.equal(done, false);
    await t.clock.advance(1);
    await result;
    assert.ok(node(t.client) !== undefined && lease(t.client) !== undefined);
    assert.deepEqual(
      t.log.lines.map((l) => l.level),
      ['warn', 'info', 'info'],
    );
    assert.match(t.log.lines[0]?.msg ?? '', /^registering node node-1 failed: cannot reach the shepherd API/);
    assert.match(t.log.lines[1]?.msg ?? '', /^registered node node-1$/);
    assert.match(t.log.lines[2]?.msg ?? '', /^registering node node-1 recovered after 7 failed attempts/);
  });

  it('stops retrying when the signal aborts', async () => {
    const t = setup();
    t.client.failNext('leases', 'get', unreachable(), 1000);
    const ac = new AbortController();
    const result = register(t.deps, ac.signal);
    await t.clock.advance(60_000);
    ac.abort();
    await assert.rejects(result, { name: 'AbortError' });
  });
});
