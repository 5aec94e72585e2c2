import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { acceptLeaseInput } from '../../src/core/lease-accept.js';
import { LeaseInputSchema } from '../../src/core/lease-schema.js';

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
/** A renewal with some fields set to odd values, deleted, or added. */
const bodies = fc.array(fc.tuple(fields, values, fc.boolean()), { maxLength: 4 }).map((edits) => {
  const body = renewal();
  for (const [path, value, remove] of edits) {
    const [a, b] = path.split('.') as [string, string | undefined];
    const parent = b === undefined ? body : (body[a] as Record<string, unknown> | undefined);
    if (typeof parent !== 'object' || parent === null) continue;
    const key = b ?? a;
    if (remove) delete parent[key];
    else parent[key] = value;
  }
  return body;
});

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
    let accepted = 0;
    fc.assert(
      fc.property(bodies, fc.boolean(), (body, update) => {
        const fast = acceptLeaseInput(body, { update });
        if (fast === undefined) return;
        accepted++;
        const slow = LeaseInputSchema.safeParse(body);
        assert.ok(slow.success, `the fast path accepted a body the schema refuses: ${JSON.stringify(body)}`);
        assert.deepStrictEqual(fast, slow.data);
        assert.equal(JSON.stringify(fast), JSON.stringify(slow.data));
        if (update)
          assert.ok(typeof fast.metadata.resourceVersion === 'string' && fast.metadata.resourceVersion !== '');
      }),
      { numRuns: 3000, seed: 19 },
    );
    assert.ok(accepted > 300, `the property saw too few accepted bodies (${accepted})`);
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
