import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SchedulerCache } from '../../../src/controller/scheduler/scheduler-cache.js';
import { node, pod } from '../workloads/fixtures.js';

const OWNER = { name: 'web', uid: 'uid-web' };

describe('SchedulerCache usage', () => {
  it('a node no owned pod uses keeps no owners map; one appears with the first and goes with the last', () => {
    const cache = new SchedulerCache();
    cache.setNode(node('n1'));
    cache.setNode(node('n2'));
    assert.equal(cache.node('n1')?.usage.owners, undefined, 'a listed node without pods holds no Map');
    cache.assume('default/a', pod('a', { owner: OWNER }), 'n1');
    cache.assume('default/b', pod('b', { owner: OWNER }), 'n1');
    assert.deepEqual([...(cache.node('n1')?.usage.owners ?? [])], [[OWNER.uid, 2]]);
    assert.equal(cache.node('n1')?.usage.pods, 2);
    assert.equal(cache.ownerZones(OWNER.uid)?.size, 1);
    cache.forget('default/a');
    cache.forget('default/b');
    assert.equal(cache.node('n1')?.usage.owners, undefined);
    assert.equal(cache.node('n1')?.usage.pods, 0);
    assert.equal(cache.node('n2')?.usage.owners, undefined);
  });
});
