import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Informer } from '../../src/client/informer.js';
import { GoneError } from '../../src/core/errors.js';
import type { Lease } from '../../src/core/lease.js';
import { silentLogger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import { eventually } from '../support/eventually.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import type { Call } from '../support/fake-api-store.js';
import { FakeClock } from '../support/fake-clock.js';

const name = (i: number): string => `n-${String(i).padStart(4, '0')}`;

function lease(n: string, renew = '2026-11-29T12:00:00.000Z'): Lease {
  return {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: { name: n, namespace: 'node-lease', uid: '', resourceVersion: '', creationTimestamp: '' },
    spec: { holderIdentity: n, leaseDurationSeconds: 40, renewTime: renew },
  };
}

describe('Informer lists in pages', () => {
  let client: FakeApiClient;
  let informer: Informer<Lease>;
  let seen: string[];
  let ac: AbortController;
  let running: Promise<void>;

  beforeEach(() => {
    client = new FakeApiClient();
    informer = new Informer<Lease>({
      client: client.leases(),
      clock: new FakeClock(),
      log: silentLogger,
      random: seededRandom(1),
      keyOf: (l) => `${l.metadata.namespace}/${l.metadata.name}`,
      backoff: { initialMs: 1, maxMs: 1 },
    });
    seen = [];
    informer.onEvent((type, obj) => seen.push(`${type} ${obj.metadata.name}`));
    ac = new AbortController();
    running = Promise.resolve();
  });
  afterEach(async () => {
    ac.abort();
    await running;
  });

  const pageCalls = (): Call[] => client.callsOf('leases', 'list');

  it('puts each page into the cache as it comes, and syncs at the resourceVersion of the list', async () => {
    for (let i = 0; i < 1200; i++) client.put('leases', lease(name(i)));
    const cachedAtEachPage: number[] = [];
    client.beforeCall = (call) => {
      if (call.op === 'list') cachedAtEachPage.push(informer.list().length);
    };
    const listRv = String(client.revision);
    running = informer.run(ac.signal);
    await informer.waitForSync(ac.signal);
    assert.deepEqual(cachedAtEachPage, [0, 500, 1000], 'a page is in the cache before the next is asked for');
    assert.deepEqual(
      pageCalls().map((c) => c.limit),
      [500, 500, 500],
    );
    assert.equal(informer.lastSyncResourceVersion(), listRv);
    assert.equal(informer.list().length, 1200);
    assert.deepEqual(seen.slice(0, 3), ['ADDED n-0000', 'ADDED n-0001', 'ADDED n-0002']);
    assert.equal(seen.length, 1200);
  });

  it('starts the list again when it expires between pages, emitting each object once', async () => {
    for (let i = 0; i < 1200; i++) client.put('leases', lease(name(i)));
    let expired = false;
    client.beforeCall = (call) => {
      if (call.op === 'list' && call.continue !== undefined && !expired) {
        expired = true;
        // Another writer changes an object the first page already brought in, then the snapshot expires.
        client.put('leases', lease(name(10), '2026-11-29T12:00:10.000Z'));
        client.expireLists();
      }
    };
    running = informer.run(ac.signal);
    await informer.waitForSync(ac.signal);
    assert.deepEqual(
      pageCalls().map((c) => c.continue === undefined),
      [true, false, true, false, false],
      'first page, a 410, then the whole list again',
    );
    assert.equal(informer.list().length, 1200);
    assert.equal(informer.get(`node-lease/${name(10)}`)?.spec.renewTime, '2026-11-29T12:00:10.000Z');
    assert.equal(seen.filter((s) => s.startsWith('ADDED')).length, 1200, 'no object added twice');
    assert.deepEqual(
      seen.filter((s) => !s.startsWith('ADDED')),
      [`MODIFIED ${name(10)}`],
    );
    assert.equal(informer.lastSyncResourceVersion(), String(client.revision));
  });

  it('a relist after Gone walks the cache beside the pages: deletes, changes and adds in key order', async () => {
    for (const n of ['a', 'b', 'c', 'e']) client.put('leases', lease(n));
    running = informer.run(ac.signal);
    await informer.waitForSync(ac.signal);
    await eventually(() => client.watches('leases').some((w) => w.open), { what: 'the informer watching' });
    seen.length = 0;
    // The watch is told its history is gone; before the relist reads, b and e go, c changes and d comes.
    let written = false;
    client.beforeCall = (call) => {
      if (call.op !== 'list' || written) return;
      written = true;
      client.remove('leases', 'b', 'node-lease');
      client.remove('leases', 'e', 'node-lease');
      client.put('leases', lease('c', '2026-11-29T12:00:30.000Z'));
      client.put('leases', lease('d'));
    };
    const before = client.revision;
    for (const w of client.watches('leases')) w.fail(new GoneError('too old resource version'));
    await eventually(() => Number(informer.lastSyncResourceVersion()) === before + 4, {
      what: 'the relist',
      last: () => informer.lastSyncResourceVersion(),
    });
    assert.deepEqual(seen, ['DELETED b', 'MODIFIED c', 'ADDED d', 'DELETED e']);
    assert.deepEqual(
      informer.list().map((l) => l.metadata.name),
      ['a', 'c', 'd'],
    );
  });
});
