import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { acceptNodeInput } from '../../src/core/node-accept.js';
import { NodeInputSchema } from '../../src/core/node-schema.js';

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

/** A written Node with some fields set to odd values, deleted, or added (`~1` in a path step is a `.`). */
const bodies = fc.array(fc.tuple(fields, values, fc.boolean()), { maxLength: 4 }).map((edits) => {
  const body = written();
  for (const [path, value, remove] of edits) {
    const steps = path.split('.').map((s) => s.replaceAll('~1', '.'));
    let parent: unknown = body;
    for (const step of steps.slice(0, -1)) parent = (parent as Record<string, unknown> | null)?.[step];
    if (typeof parent !== 'object' || parent === null) continue;
    const key = steps.at(-1) as string;
    if (remove) delete (parent as Record<string, unknown>)[key];
    else (parent as Record<string, unknown>)[key] = value;
  }
  return body;
});

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
    let accepted = 0;
    fc.assert(
      fc.property(bodies, fc.boolean(), (body, update) => {
        const fast = acceptNodeInput(body, { update });
        if (fast === undefined) return;
        accepted++;
        const slow = NodeInputSchema.safeParse(body);
        assert.ok(slow.success, `the fast path accepted a body the schema refuses: ${JSON.stringify(body)}`);
        assert.deepStrictEqual(fast, slow.data);
        assert.equal(JSON.stringify(fast), JSON.stringify(slow.data));
        if (update)
          assert.ok(typeof fast.metadata.resourceVersion === 'string' && fast.metadata.resourceVersion !== '');
      }),
      { numRuns: 4000, seed: 29 },
    );
    assert.ok(accepted > 400, `the property saw too few accepted bodies (${accepted})`);
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
