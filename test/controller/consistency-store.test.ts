import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareResourceVersion,
  ConsistencyError,
  ConsistencyStore,
  noopConsistencyStore,
  type SyncedCache,
} from '../../src/controller/node-lifecycle/consistency-store.js';

/** A cache whose last-synced RV the test sets directly. */
class FakeCache implements SyncedCache {
  constructor(public rv = '') {}
  lastSyncResourceVersion(): string {
    return this.rv;
  }
}

function setup(rv = '100'): { leases: FakeCache; store: ConsistencyStore } {
  const leases = new FakeCache(rv);
  return { leases, store: new ConsistencyStore({ leases }) };
}

describe('ConsistencyStore', () => {
  it('is ready when nothing was written', () => {
    const { store } = setup('');
    assert.equal(store.ensureReady(), undefined);
    assert.deepEqual(store.pending(), []);
  });

  it('is not ready while the cache is behind the written RV, and says which RVs', () => {
    const { store } = setup('100');
    store.wroteAt('leases', '105');
    const err = store.ensureReady();
    assert.ok(err instanceof ConsistencyError);
    assert.equal(err.resource, 'leases');
    assert.equal(err.writtenRv, '105');
    assert.equal(err.cachedRv, '100');
    assert.match(err.message, /100.*105/);
    assert.deepEqual(store.pending(), [{ resource: 'leases', writtenRv: '105', cachedRv: '100' }]);
    // Asking again does not clear anything.
    assert.ok(store.ensureReady() instanceof ConsistencyError);
  });

  it('becomes ready once the cache catches up, and clears the record (one-shot)', () => {
    const { leases, store } = setup('100');
    store.wroteAt('leases', '105');
    leases.rv = '104';
    assert.ok(store.ensureReady() instanceof ConsistencyError);
    leases.rv = '105';
    assert.equal(store.ensureReady(), undefined);
    assert.deepEqual(store.pending(), []);
    leases.rv = '50';
    assert.equal(store.ensureReady(), undefined, 'a later cache regression does not re-trip');
  });

  it('a cache past the written RV is ready', () => {
    const { leases, store } = setup('100');
    store.wroteAt('leases', '105');
    leases.rv = '1000';
    assert.equal(store.ensureReady(), undefined);
  });

  it('wroteAt keeps the newest RV, compared as numbers (not as strings)', () => {
    const { leases, store } = setup('100');
    store.wroteAt('leases', '105');
    store.wroteAt('leases', '99');
    store.wroteAt('leases', '1000');
    store.wroteAt('leases', '999');
    assert.equal(store.ensureReady()?.writtenRv, '1000');
    leases.rv = '999';
    assert.ok(store.ensureReady() instanceof ConsistencyError);
    leases.rv = '1000';
    assert.equal(store.ensureReady(), undefined);
  });

  it('an empty cache RV (never synced) is not ready', () => {
    const { leases, store } = setup('');
    store.wroteAt('leases', '7');
    const err = store.ensureReady();
    assert.ok(err instanceof ConsistencyError);
    assert.equal(err.cachedRv, '');
    assert.match(err.message, /not synced/);
    leases.rv = '7';
    assert.equal(store.ensureReady(), undefined);
  });

  it('ignores an unparsable written RV', () => {
    const { store } = setup('100');
    for (const rv of ['', 'newRV', '0', '012', '-5', '1.5']) store.wroteAt('leases', rv);
    assert.deepEqual(store.pending(), []);
    store.wroteAt('leases', '200');
    store.wroteAt('leases', 'garbage');
    assert.equal(store.ensureReady()?.writtenRv, '200');
  });

  it('skips a resource whose cache RV does not parse (counts as ready), as upstream does', () => {
    const { leases, store } = setup('newRV');
    store.wroteAt('leases', '200');
    assert.equal(store.ensureReady(), undefined);
    leases.rv = '1';
    assert.equal(store.ensureReady(), undefined, 'record was cleared by the skipped check');
  });

  it('tracks several resources and reports the lagging one, in sorted order', () => {
    const leases = new FakeCache('10');
    const nodes = new FakeCache('10');
    const store = new ConsistencyStore({ nodes, leases });
    store.wroteAt('nodes', '20');
    store.wroteAt('leases', '20');
    assert.equal(store.ensureReady()?.resource, 'leases');
    leases.rv = '20';
    assert.equal(store.ensureReady()?.resource, 'nodes');
    assert.deepEqual(
      store.pending().map((p) => p.resource),
      ['leases', 'nodes'],
    );
    nodes.rv = '20';
    assert.equal(store.ensureReady(), undefined);
    assert.deepEqual(store.pending(), []);
  });

  it('refuses a resource that has no cache (a wiring bug would otherwise pause forever)', () => {
    const { store } = setup('100');
    assert.throws(() => store.wroteAt('nodes', '5'), /no cache registered for "nodes"/);
  });
});

describe('compareResourceVersion', () => {
  it('orders by numeric value of any length and rejects malformed RVs', () => {
    assert.equal(compareResourceVersion('9', '10'), -1);
    assert.equal(compareResourceVersion('10', '9'), 1);
    assert.equal(compareResourceVersion('42', '42'), 0);
    assert.equal(compareResourceVersion('123456789012345678901234567890', '123456789012345678901234567891'), -1);
    for (const bad of ['', '0', '01', 'x1', '1 ', '+1']) {
      assert.equal(compareResourceVersion(bad, '1'), undefined, JSON.stringify(bad));
      assert.equal(compareResourceVersion('1', bad), undefined, JSON.stringify(bad));
    }
  });
});

describe('noopConsistencyStore', () => {
  it('records nothing and is always ready', () => {
    noopConsistencyStore.wroteAt('leases', '100');
    assert.equal(noopConsistencyStore.ensureReady(), undefined);
    assert.deepEqual(noopConsistencyStore.pending(), []);
  });
});
