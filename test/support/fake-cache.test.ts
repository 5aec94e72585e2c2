import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Informer } from '../../src/client/informer.js';
import type { ObjectCache } from '../../src/client/object-cache.js';
import type { Lease } from '../../src/core/lease.js';
import { silentLogger } from '../../src/core/logger.js';
import { eventually } from './eventually.js';
import { FakeApiClient } from './fake-api-client.js';
import { FakeCache } from './fake-cache.js';
import { FakeClock } from './fake-clock.js';

const lease = (name: string, renewTime = '2026-11-29T12:00:00.000Z'): Lease => ({
  apiVersion: 'coordination/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'node-lease', uid: `u-${name}`, resourceVersion: '', creationTimestamp: renewTime },
  spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
});
const keyOf = (l: Lease): string => `${l.metadata.namespace}/${l.metadata.name}`;

/** The identity contract the node lifecycle controller's fast path relies on, checked against one cache. */
async function checkSharing(
  client: FakeApiClient,
  cache: ObjectCache<Lease> & { sortedView(): readonly Lease[] },
  seen: () => Promise<unknown>,
) {
  client.put('leases', lease('b'));
  client.put('leases', lease('a'));
  await seen();
  const a = cache.get('node-lease/a');
  const b = cache.get('node-lease/b');
  assert.ok(a && b);
  assert.equal(cache.get('node-lease/a'), a, 'the same object until it changes');
  const view = cache.sortedView();
  assert.deepEqual(view, [a, b]);
  assert.equal(view[0], a, 'sortedView holds the cached objects themselves');
  assert.equal(cache.sortedView(), view, 'and the same array while nothing changes');
  const copy = cache.list();
  assert.notEqual(copy, view, 'list() is a new array…');
  assert.equal(copy[1], b, '…of the same objects');

  client.put('leases', lease('a', '2026-11-29T12:00:10.000Z'));
  await seen();
  const a2 = cache.get('node-lease/a');
  assert.notEqual(a2, a, 'a change is a new object');
  assert.equal(a2?.spec.renewTime, '2026-11-29T12:00:10.000Z');
  assert.equal(a.spec.renewTime, '2026-11-29T12:00:00.000Z', 'the old object is left as it was');
  assert.equal(cache.get('node-lease/b'), b, 'an unchanged neighbour keeps its identity');
  assert.equal(cache.sortedView(), view, 'a change patches the sorted view in place');
  assert.equal(view[0], a2);

  client.put('leases', lease('c'));
  client.remove('leases', 'b');
  await seen();
  assert.deepEqual(
    cache.sortedView().map((l) => l.metadata.name),
    ['a', 'c'],
  );
  assert.equal(cache.sortedView()[0], a2);
  assert.equal(cache.lastSyncResourceVersion(), String(client.revision));
}

describe('FakeCache shares objects as the Informer does', () => {
  it('the Informer (the reference)', async () => {
    // Not from revision 0: a watch from "0" replays the current state, which is another story.
    const client = new FakeApiClient({ revision: 10 });
    const informer = new Informer<Lease>({
      client: client.leases(),
      clock: new FakeClock(),
      log: silentLogger,
      keyOf,
    });
    const ac = new AbortController();
    const running = informer.run(ac.signal);
    const seen = (): Promise<unknown> =>
      eventually(() => informer.lastSyncResourceVersion() === String(client.revision), {
        what: `the informer at revision ${client.revision}`,
        last: () => informer.lastSyncResourceVersion(),
        timeoutMs: 5_000,
      });
    try {
      await checkSharing(client, informer, seen);
    } finally {
      ac.abort();
      await running;
    }
  });

  it('FakeCache fed by the fake API, as the controller harness feeds it', async () => {
    const client = new FakeApiClient({ revision: 10 });
    const cache = new FakeCache<Lease>(keyOf);
    client.onChange((resource, type, obj) => {
      if (resource !== 'leases') return;
      if (type === 'DELETED') cache.remove(keyOf(obj as unknown as Lease), obj.metadata.resourceVersion);
      else cache.set(obj as unknown as Lease);
    });
    await checkSharing(client, cache, async () => undefined);
  });
});
