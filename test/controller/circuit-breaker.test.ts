import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InternalError } from '../../src/core/errors.js';
import type { Lease } from '../../src/core/lease.js';
import { EXCLUDE_DISRUPTION_LABEL } from '../../src/core/node.js';
import { harness, type Harness } from './node-lifecycle-harness.js';

const BREAKER_LOG = 'Update health of Node from Controller error, Skipping - no pods will be evicted';

/** Passes every 5 s until monotonic `endMs`; `renewing` agents renew every 10 s just before that pass. */
async function runUntil(h: Harness, endMs: number, renewing: string[] = []): Promise<void> {
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(5_000);
    if (h.clock.monotonic() % 10_000 === 0) for (const n of renewing) h.renew(n);
    await h.controller.monitorNodeHealth();
  }
}

/** The informer catches up: every lease changed meanwhile reaches the cache, as a new object. */
function catchUp(h: Harness): void {
  for (const [key, l] of h.client.data.leases) {
    const live = l as unknown as Lease;
    if (h.leases.get(key)?.metadata.resourceVersion !== live.metadata.resourceVersion)
      h.leases.set(structuredClone(live));
  }
  h.client.syncLeases = true;
}

const leaseGets = (h: Harness): number => h.client.callsOf('leases', 'get').length;

function twoNodes(overrides: Parameters<typeof harness>[0] = {}): Harness {
  const h = harness(overrides);
  h.addNode('n1', { ready: 'True', zone: 'z' });
  h.addNode('n2', { ready: 'True', zone: 'z' });
  return h;
}

// docs/node-lifecycle.md#lease-circuit-breaker
describe('lease circuit breaker', () => {
  it('stale cache, fresher live lease: no mark, every node paused until the cache reaches the live RV, then no mark at all', async () => {
    const h = twoNodes();
    await h.controller.monitorNodeHealth();
    h.client.syncLeases = false; // the lease watch freezes; agents keep renewing against the API
    await runUntil(h, 50_000, ['n1', 'n2']);
    assert.equal(leaseGets(h), 0, 'no live read while nothing expired');
    await runUntil(h, 55_000, ['n1', 'n2']);
    assert.equal(h.statusWrites(), 0);
    // Both nodes expire in this pass and are judged in parallel (8 workers), so both live GETs were in flight.
    assert.equal(leaseGets(h), 2, 'the live GETs of the nodes already being judged, then the pass is abandoned');
    const stale = h.events('LeaseCacheStale');
    assert.equal(stale.length, 1);
    assert.equal(stale[0]?.type, 'Warning');
    const liveRv = (h.client.data.leases.get('node-lease/n1') as unknown as Lease).metadata.resourceVersion;
    const cachedRv = h.leases.get('node-lease/n1')?.metadata.resourceVersion ?? '';
    assert.match(
      stale[0]?.message ?? '',
      new RegExp(`cached resourceVersion ${cachedRv}, live resourceVersion ${liveRv}`),
    );
    assert.ok(h.lines.some((l) => l.msg === BREAKER_LOG && l.obj.node === 'n1'));
    let snap = h.controller.snapshot();
    assert.equal(snap.breaker.holding, true);
    const newestLive = (h.client.data.leases.get('node-lease/n2') as unknown as Lease).metadata.resourceVersion;
    assert.ok(Number(newestLive) > Number(liveRv));
    assert.deepEqual(snap.breaker.pending, [
      { resource: 'leases', writtenRv: newestLive, cachedRv: h.leases.lastSyncResourceVersion() },
    ]);
    let metrics = await h.registry.metrics();
    assert.match(metrics, /shepherd_node_lifecycle_circuit_breaker_trips_total 1/);
    assert.match(metrics, /shepherd_node_lifecycle_circuit_breaker_holding 1/);
    const zone = h.client.data.zones.get('z') as unknown as { metadata: { annotations: Record<string, string> } };
    assert.ok(zone.metadata.annotations['shepherd.io/lease-circuit-breaker']?.startsWith('holding'));

    await runUntil(h, 120_000, ['n1', 'n2']);
    assert.equal(h.statusWrites(), 0, 'held for a whole extra grace: still no mark');
    assert.equal(leaseGets(h), 2, 'check A holds every node without further live reads');
    assert.equal(h.controller.snapshot().zones[0]?.state, 'Normal', 'zone state untouched by abandoned passes');

    catchUp(h);
    await runUntil(h, 240_000, ['n1', 'n2']);
    assert.equal(h.statusWrites(), 0, 'never marked');
    snap = h.controller.snapshot();
    assert.equal(snap.breaker.holding, false);
    assert.deepEqual(snap.breaker.pending, []);
    metrics = await h.registry.metrics();
    assert.match(metrics, /shepherd_node_lifecycle_circuit_breaker_holding 0/);
    const zone2 = h.client.data.zones.get('z') as unknown as { metadata: { annotations?: Record<string, string> } };
    assert.equal(zone2.metadata.annotations?.['shepherd.io/lease-circuit-breaker'], undefined);
  });

  it('lease deleted live: the mark proceeds', async () => {
    const h = twoNodes();
    await h.controller.monitorNodeHealth();
    // The delete never reaches the cache (the fake informer only sees puts): the cache still holds n1's lease.
    await h.client.leases().delete('n1');
    await runUntil(h, 55_000, ['n2']);
    assert.equal(h.statusWrites('n1'), 1);
    assert.equal(h.node('n1').status.conditions?.[0]?.status, 'Unknown');
    assert.equal(h.statusWrites('n2'), 0);
  });

  it('live GET fails: the pass is abandoned naming the node, nothing marked, marked on the next pass', async () => {
    const h = twoNodes();
    await h.controller.monitorNodeHealth();
    await runUntil(h, 50_000, ['n2']);
    const records = h.controller.snapshot().healthRecords;
    h.client.failNext('leases', 'get', new InternalError('etcd timeout'));
    await runUntil(h, 55_000, ['n2']);
    assert.equal(h.statusWrites(), 0);
    const snap = h.controller.snapshot();
    assert.match(snap.breaker.lastError ?? '', /error looking up lease to verify node n1: etcd timeout/);
    assert.equal(snap.breaker.trips, 1);
    assert.equal(snap.healthRecords, records);
    assert.equal(h.events('LeaseCacheStale').length, 0, 'not a stale cache: no such event');
    await runUntil(h, 60_000, ['n2']);
    assert.equal(h.statusWrites('n1'), 1);
    assert.equal(h.controller.snapshot().breaker.holding, false);
  });

  it('cache current: the live RV equals the recorded one and the mark proceeds', async () => {
    const h = twoNodes();
    await h.controller.monitorNodeHealth();
    await runUntil(h, 55_000, ['n2']);
    assert.equal(leaseGets(h), 1);
    assert.equal(h.statusWrites('n1'), 1);
    assert.equal(h.controller.snapshot().breaker.trips, 0);
  });

  it('a lease label edit is recorded, so the breaker does not trip on it', async () => {
    const h = twoNodes();
    await h.controller.monitorNodeHealth();
    await runUntil(h, 30_000, ['n2']);
    const cur = h.client.data.leases.get('node-lease/n1') as unknown as Lease;
    h.client.put('leases', { ...cur, metadata: { ...cur.metadata, labels: { edited: 'yes' } } });
    await runUntil(h, 55_000, ['n2']);
    assert.equal(h.statusWrites('n1'), 1, 'marked at the original deadline: the edit was not a renewal');
    assert.equal(h.controller.snapshot().breaker.trips, 0);
  });

  it('gate off: a stale cache marks the node and no live lease is read', async () => {
    const h = twoNodes({ leaseCircuitBreaker: false });
    await h.controller.monitorNodeHealth();
    h.client.syncLeases = false;
    await runUntil(h, 55_000, ['n1', 'n2']);
    assert.equal(h.statusWrites(), 2);
    assert.equal(leaseGets(h), 0);
    assert.equal(h.controller.snapshot().breaker.enabled, false);
  });

  // docs/node-lifecycle.md#d9-no-crash-without-a-health-record
  it('never crashes on a node without a health record, also while leaving master-disruption mode', async () => {
    const h = harness();
    h.addNode('a1', { ready: 'Unknown', zone: 'a' });
    h.addNode('b1', { ready: 'Unknown', zone: 'b' });
    h.addNode('x1', { ready: 'True', zone: 'a', labels: { [EXCLUDE_DISRUPTION_LABEL]: 'true' } });
    await h.controller.monitorNodeHealth();
    assert.equal(h.controller.snapshot().masterDisruption, true);
    h.client.syncLeases = false;
    await runUntil(h, 55_000, ['x1']);
    assert.equal(h.controller.snapshot().breaker.holding, true, 'x1 expired in the cache only: the breaker holds');
    await h.clock.advance(5_000);
    h.addNode('c1', { ready: 'True', zone: 'c' });
    await h.controller.monitorNodeHealth();
    assert.equal(h.controller.healthOf('c1'), undefined, 'abandoned pass: no record, and none stored as null');
    assert.equal(h.controller.snapshot().masterDisruption, true);
    catchUp(h);
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    const snap = h.controller.snapshot();
    assert.equal(snap.masterDisruption, false, 'zone c is Normal: the mode ends');
    assert.equal(h.controller.healthOf('c1')?.probeTimestamp, 65_000);
    assert.equal(h.statusWrites('x1'), 0);
  });
});
