import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { acceptLeaseInput } from '../../src/core/lease-accept.js';
import { LeaseInputSchema } from '../../src/core/lease-schema.js';
import { assertHeldToSchema, editedBodies } from './accept-property.js';

/** A renewal as agents send it. */
function renewal(): Record<string, unknown> {
  return {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: {
      name: 'node-7',
      namespace: 'node-lease',
      uid: '5d2e9a40-7b3c-4e1f-8a6d-0c9b8e7f6a5d',
      resourceVersion: '1234',
      creationTimestamp: '2026-12-01T00:00:00.000Z',
    },
    spec: {
      holderIdentity: 'node-7',
      leaseDurationSeconds: 40,
      acquireTime: '2026-12-01T00:00:00.000000Z',
      renewTime: '2026-12-02T03:40:00.123456Z',
      leaseTransitions: 0,
    },
  };
}

const values = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    '',
    'node-7',
    'Node_7',
    'coordination/v1',
    'Lease',
    'v1',
    '2026-12-02T03:40:00Z',
    '2026-12-02T03:40:00.123456789+01:00',
    '2026-13-45T03:40:00Z',
    '2026-12-02 03:40:00Z',
    'x'.repeat(64),
    'x'.repeat(65),
    'a'.repeat(254),
    0,
    -0,
    1,
    -1,
    40,
    86_400,
    86_401,
    1.5,
    2 ** 53,
    Number.NaN,
    true,
    [],
    {},
    { a: '1' },
  ),
  fc.string(),
  fc.integer(),
);
const fields = fc.constantFrom(
  'apiVersion',
  'kind',
  'metadata',
  'spec',
  'extra',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'metadata.resourceVersion',
  'metadata.creationTimestamp',
  'metadata.labels',
  'metadata.annotations',
  'metadata.generation',
  'spec.holderIdentity',
  'spec.leaseDurationSeconds',
  'spec.acquireTime',
  'spec.renewTime',
  'spec.leaseTransitions',
  'spec.other',
);
const bodies = editedBodies(renewal, fields, values);

describe('acceptLeaseInput', () => {
  it('accepts what agents send, as the schema would output it', () => {
    for (const update of [false, true]) {
      const body = renewal();
      const fast = acceptLeaseInput(body, { update });
      assert.notEqual(fast, undefined);
      assert.equal(JSON.stringify(fast), JSON.stringify(LeaseInputSchema.parse(body)));
    }
    const minimal = { metadata: { name: 'n1', resourceVersion: '3' }, spec: renewal()['spec'] };
    assert.deepEqual(acceptLeaseInput(minimal, { update: true }), LeaseInputSchema.parse(minimal));
  });

  it('never accepts what the schema refuses, and outputs exactly the schema output (keys in order) when it accepts', () => {
    assertHeldToSchema(acceptLeaseInput, LeaseInputSchema, bodies, { numRuns: 3000, seed: 19, minAccepted: 300 });
  });

  it('leaves labels, annotations and non-plain bodies to the schema', () => {
    const labelled = renewal();
    (labelled['metadata'] as Record<string, unknown>)['labels'] = { a: 'b' };
    assert.equal(acceptLeaseInput(labelled), undefined);
    assert.equal(acceptLeaseInput([renewal()]), undefined);
    assert.equal(acceptLeaseInput(Object.assign(Object.create(null) as object, renewal())), undefined);
    assert.equal(acceptLeaseInput('lease'), undefined);
  });
});
