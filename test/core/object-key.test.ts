import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KIND_OF, keyOf, RESOURCES } from '../../src/core/kinds.js';
import { namespaceKeyPrefix, objectKey, splitObjectKey } from '../../src/core/object-key.js';

describe('object keys', () => {
  it('are namespace/name with a namespace and the name without, and split back into the same parts', () => {
    assert.equal(objectKey({ namespace: 'node-lease', name: 'node-1' }), 'node-lease/node-1');
    assert.equal(objectKey({ name: 'node-1' }), 'node-1');
    assert.deepEqual(splitObjectKey('node-lease/node-1'), { namespace: 'node-lease', name: 'node-1' });
    assert.deepEqual(splitObjectKey('node-1'), { name: 'node-1' });
    for (const ref of [{ namespace: 'a', name: 'b.c-1' }, { name: 'x' }]) {
      assert.deepEqual(splitObjectKey(objectKey(ref)), ref);
    }
  });

  it('of one namespace share its prefix', () => {
    const key = objectKey({ namespace: 'shepherd-system', name: 'leader' });
    assert.ok(key.startsWith(namespaceKeyPrefix('shepherd-system')));
    assert.ok(!key.startsWith(namespaceKeyPrefix('shepherd')));
  });

  it('follow the kind: only namespaced kinds put the namespace in the key', () => {
    const metadata = { name: 'n1', namespace: 'node-lease' };
    for (const resource of RESOURCES) {
      const expected = KIND_OF[resource].namespaced ? 'node-lease/n1' : 'n1';
      assert.equal(keyOf(resource, { metadata }), expected, resource);
    }
    assert.equal(KIND_OF.leases.namespaced, true);
    assert.equal(KIND_OF.nodes.namespaced, false);
  });
});
