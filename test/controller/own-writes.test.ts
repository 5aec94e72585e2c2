import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OwnWrites } from '../../src/controller/node-lifecycle/own-writes.js';
import type { Node } from '../../src/core/node.js';
import { FakeCache } from '../support/fake-cache.js';
import { makeNode } from './node-lifecycle-harness.js';

const at = (name: string, rv: string): Node => {
  const n = makeNode(name, 0, { ready: 'True' });
  return { ...n, metadata: { ...n.metadata, resourceVersion: rv } };
};

describe('OwnWrites.prune', () => {
  it('drops only the copies the cache caught up with (or no longer holds), as freshen would', () => {
    const cache = new FakeCache<Node>();
    const writes = new OwnWrites(cache);
    for (const name of ['behind', 'caught', 'gone', 'unnamed']) cache.set(at(name, '5'));
    for (const name of ['behind', 'caught', 'gone', 'unnamed']) writes.remember(at(name, '7'));
    cache.set(at('caught', '7'));
    cache.remove('gone');
    writes.prune(['behind', 'caught', 'gone', 'never-written']);
    // A copy still ahead of the cache is kept: reads return it over the cached one.
    assert.equal(writes.freshen(at('behind', '5')).metadata.resourceVersion, '7');
    // Not named: kept, though `prune` would drop it.
    assert.equal(writes.freshen(at('unnamed', '5')).metadata.resourceVersion, '7');
    // Dropped: an older listed copy (a stale read) is no longer laid over with ours.
    assert.equal(writes.freshen(at('caught', '6')).metadata.resourceVersion, '6');
    assert.equal(writes.freshen(at('gone', '6')).metadata.resourceVersion, '6');
  });
});
