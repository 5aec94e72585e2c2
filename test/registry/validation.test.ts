import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BadRequestError, InvalidError } from '../../src/core/errors.js';
import { NodeInputSchema } from '../../src/core/node-schema.js';
import { checkName, fieldPath, parseBody } from '../../src/registry/validation.js';

function causesOf(fn: () => unknown): { field: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InvalidError, String(err));
    assert.equal(err.code, 422);
    return err.details?.causes ?? [];
  }
  assert.fail('expected InvalidError');
}

describe('request body validation', () => {
  it('formats field paths the Kubernetes way', () => {
    assert.equal(fieldPath(['spec', 'taints', 0, 'key']), 'spec.taints[0].key');
    assert.equal(fieldPath(['metadata', 'labels', 'foo']), 'metadata.labels.foo');
    assert.equal(fieldPath([]), '');
  });

  it('names each unknown field, at any depth', () => {
    const causes = causesOf(() =>
      parseBody(NodeInputSchema, { metadata: { name: 'n', nick: 'x' }, spec: { bogus: 1, other: 2 } }, 'Node'),
    );
    assert.deepEqual(causes.map((c) => c.field).sort(), ['metadata.nick', 'spec.bogus', 'spec.other']);
    assert.ok(causes.every((c) => /unknown field/.test(c.message)));
  });

  it('reports a bad label under metadata.labels.<key>', () => {
    const causes = causesOf(() =>
      parseBody(NodeInputSchema, { metadata: { name: 'n', labels: { foo: '-bad-' } } }, 'Node'),
    );
    assert.deepEqual(
      causes.map((c) => c.field),
      ['metadata.labels.foo'],
    );
  });

  it('adds the missing resourceVersion of an update to the other causes', () => {
    const causes = causesOf(() =>
      parseBody(NodeInputSchema, { metadata: { name: 'n' }, spec: { x: 1 } }, 'Node', { update: true }),
    );
    assert.deepEqual(causes.map((c) => c.field).sort(), ['metadata.resourceVersion', 'spec.x']);
    assert.equal(
      causes.find((c) => c.field === 'metadata.resourceVersion')?.message,
      'must be specified for an update',
    );
  });

  it('returns the parsed body when valid', () => {
    const node = parseBody(NodeInputSchema, { metadata: { name: 'n', resourceVersion: '3' } }, 'Node', {
      update: true,
    });
    assert.equal(node.metadata.resourceVersion, '3');
  });

  it('answers BadRequest for a body that is not an object, and for a name that differs from the URL', () => {
    assert.throws(() => parseBody(NodeInputSchema, 'text', 'Node'), BadRequestError);
    assert.throws(() => parseBody(NodeInputSchema, null, 'Node'), BadRequestError);
    assert.throws(() => checkName('Node', 'a', 'b'), BadRequestError);
    checkName('Node', 'a', 'a');
  });
});
