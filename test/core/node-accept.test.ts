import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { acceptNodeInput } from '../../src/core/node-accept.js';
import { NodeInputSchema } from '../../src/core/node-schema.js';
import { assertHeldToSchema, editedBodies } from './accept-property.js';

/** A Node as the controller writes it back: the agent's registration and status, a taint, a Suspect mark. */
function written(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: 'node-000007',
      uid: '5d2e9a40-7b3c-4e1f-8a6d-0c9b8e7f6a5d',
      resourceVersion: '1234',
      creationTimestamp: '2026-12-01T00:00:00.000Z',
      labels: { 'topology.kubernetes.io/zone': 'zone-a', 'kubernetes.io/hostname': 'node-000007', tier: '' },
      annotations: { 'shepherd.io/note': 'anything at all, even spaces' },
    },
    spec: {
      taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-12-02T03:40:00Z' }],
      unschedulable: false,
    },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'Unknown',
          reason: 'NodeStatusUnknown',
          message: 'Agent stopped posting node status.',
          lastHeartbeatTime: '2026-12-02T03:39:00.000Z',
          lastTransitionTime: '2026-12-02T03:40:00.000Z',
        },
        { type: 'Suspect', status: 'True', reason: 'MissedRenewals', message: 'silent for 16 s' },
      ],
      nodeInfo: { agentVersion: '0.1.0', hostname: 'node-000007', os: 'linux', arch: 'amd64' },
      addresses: [
        { type: 'InternalIP', address: '10.0.0.7' },
        { type: 'Hostname', address: 'node-000007' },
      ],
      podCount: 3,
      capacity: { cpu: '2', memory: '4Gi', pods: '110' },
      allocatable: { cpu: '1500m', memory: '3Gi' },
    },
  };
}

const values = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    '',
    'v1',
    'Node',
    'node-7',
    'Node_7',
    'NoExecute',
    'NoSchedule',
    'Sometimes',
    'True',
    'Unknown',
    'maybe',
    '2026-12-02T03:40:00Z',
    '2026-13-45T03:40:00Z',
    '500m',
    '1.5Gi',
    '12 cores',
    'example.com/key',
    'Bad Key',
    'x'.repeat(63),
    'x'.repeat(64),
    'x'.repeat(129),
    'x'.repeat(254),
    0,
    -0,
    -1,
    3,
    1.5,
    2 ** 53,
    Number.NaN,
    true,
    false,
    [],
    [{}],
    {},
    { a: '1' },
    { 'bad key': 'v' },
    { k: 'v'.repeat(64) },
  ),
  fc.string(),
  fc.integer(),
);

const fields = fc.constantFrom(
  'apiVersion',
  'kind',
  'extra',
  'metadata',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'metadata.resourceVersion',
  'metadata.creationTimestamp',
  'metadata.labels',
  'metadata.labels.tier',
  'metadata.labels.Bad Key',
  'metadata.annotations',
  'metadata.annotations.example.com~1key',
  'metadata.generation',
  'spec',
  'spec.taints',
  'spec.taints.0',
  'spec.taints.0.key',
  'spec.taints.0.value',
  'spec.taints.0.effect',
  'spec.taints.0.timeAdded',
  'spec.taints.0.other',
  'spec.unschedulable',
  'spec.other',
  'status',
  'status.conditions',
  'status.conditions.1',
  'status.conditions.0.type',
  'status.conditions.0.status',
  'status.conditions.0.reason',
  'status.conditions.1.message',
  'status.conditions.0.lastHeartbeatTime',
  'status.conditions.1.other',
  'status.nodeInfo',
  'status.nodeInfo.os',
  'status.nodeInfo.other',
  'status.addresses',
  'status.addresses.0.type',
  'status.addresses.1.address',
  'status.podCount',
  'status.capacity',
  'status.capacity.cpu',
  'status.allocatable.memory',
  'status.allocatable.gpu',
  'status.other',
);

const bodies = editedBodies(written, fields, values);

describe('acceptNodeInput', () => {
  it('accepts what the controller writes, as the schema would output it, a new object at every level', () => {
    for (const update of [false, true]) {
      const body = written();
      const fast = acceptNodeInput(body, { update });
      assert.ok(fast !== undefined);
      assert.equal(JSON.stringify(fast), JSON.stringify(NodeInputSchema.parse(body)));
      assert.notEqual(fast.metadata.labels, (body['metadata'] as Record<string, unknown>)['labels']);
      assert.notEqual(fast.status?.conditions?.[0], (body['status'] as { conditions: unknown[] }).conditions[0]);
    }
    const minimal = { metadata: { name: 'n1' } };
    assert.deepEqual(acceptNodeInput(minimal), NodeInputSchema.parse(minimal));
    assert.equal(acceptNodeInput(minimal, { update: true }), undefined, 'an update names its resourceVersion');
  });

  it('never accepts what the schema refuses, and outputs exactly the schema output (keys in order) when it accepts', () => {
    assertHeldToSchema(acceptNodeInput, NodeInputSchema, bodies, { numRuns: 4000, seed: 29, minAccepted: 400 });
  });

  it('leaves keys holding undefined, too many labels and non-plain bodies to the schema', () => {
    const body = written();
    (body['metadata'] as Record<string, unknown>)['namespace'] = undefined;
    assert.equal(acceptNodeInput(body), undefined);
    const crowded = written();
    (crowded['metadata'] as Record<string, unknown>)['labels'] = Object.fromEntries(
      Array.from({ length: 65 }, (_, i) => [`l${i}`, 'v']),
    );
    assert.equal(acceptNodeInput(crowded), undefined);
    assert.equal(NodeInputSchema.safeParse(crowded).success, false);
    assert.equal(acceptNodeInput([written()]), undefined);
    assert.equal(acceptNodeInput(Object.assign(Object.create(null) as object, written())), undefined);
    assert.equal(acceptNodeInput('node'), undefined);
  });
});
