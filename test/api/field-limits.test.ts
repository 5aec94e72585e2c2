import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  MAX_ANNOTATIONS_BYTES,
  MAX_EVENT_MESSAGE_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
  MAX_REASON_CHARS,
} from '../../src/core/limits.js';
import {
  call,
  eventBody,
  leaseBody,
  nodeBody,
  snapshot,
  startTestServer,
  statusBodyOf,
  type Json,
  type TestServer,
} from './harness.js';

function condition(extra: Record<string, unknown>): Record<string, unknown> {
  return { type: 'Ready', status: 'True', ...extra };
}

/** The answer is 422 Invalid, naming `field` among its causes, and nothing was written. */
async function refused(t: TestServer, res: Promise<Json>, field: string): Promise<void> {
  const before = await snapshot(t);
  const r = await res;
  assert.equal(r.status, 422, JSON.stringify(r.body).slice(0, 300));
  const causes = statusBodyOf(r).details['causes'] as { field: string }[];
  assert.ok(
    causes.some((c) => c.field === field),
    `no cause for ${field}: ${JSON.stringify(causes)}`,
  );
  assert.equal(await snapshot(t), before);
}

describe('size limits on free-text fields (422 naming the field)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('bounds node condition messages and reasons, taint keys and values, node info and addresses', async () => {
    const long = (n: number): string => 'x'.repeat(n + 1);
    const cases: [Record<string, unknown>, string][] = [
      [{ status: { conditions: [condition({ message: long(MAX_MESSAGE_CHARS) })] } }, 'status.conditions[0].message'],
      [{ status: { conditions: [condition({ reason: long(MAX_REASON_CHARS) })] } }, 'status.conditions[0].reason'],
      [{ status: { conditions: [condition({ type: long(63) })] } }, 'status.conditions[0].type'],
      [{ spec: { taints: [{ key: long(317), effect: 'NoSchedule' }] } }, 'spec.taints[0].key'],
      [{ spec: { taints: [{ key: 'k', value: long(63), effect: 'NoSchedule' }] } }, 'spec.taints[0].value'],
      [
        { status: { nodeInfo: { agentVersion: 'v', hostname: long(253), os: 'linux', arch: 'amd64' } } },
        'status.nodeInfo.hostname',
      ],
      [{ status: { addresses: [{ type: 'InternalIP', address: long(253) }] } }, 'status.addresses[0].address'],
    ];
    for (const [extra, field] of cases) {
      await refused(t, call(t, 'POST', '/api/v1/nodes', nodeBody('limits-1', extra)), field);
    }
    // At the limit is fine.
    const ok = await call(
      t,
      'POST',
      '/api/v1/nodes',
      nodeBody('limits-1', { status: { conditions: [condition({ message: 'm'.repeat(MAX_MESSAGE_CHARS) })] } }),
    );
    assert.equal(ok.status, 201);
    // And a status update is held to the same bounds.
    const rv = ok.body['metadata'].resourceVersion as string;
    await refused(
      t,
      call(t, 'PUT', '/api/v1/nodes/limits-1/status', {
        metadata: { name: 'limits-1', resourceVersion: rv },
        status: { conditions: [condition({ message: long(MAX_MESSAGE_CHARS) })] },
      }),
      'status.conditions[0].message',
    );
  });

  it('bounds annotations per object in UTF-8 bytes, on every kind', async () => {
    // Two-byte characters: within the limit in characters, over it in bytes.
    const annotations = { 'a.io/big': 'é'.repeat(MAX_ANNOTATIONS_BYTES / 2) };
    await refused(
      t,
      call(t, 'POST', '/api/v1/nodes', { metadata: { name: 'ann-1', annotations } }),
      'metadata.annotations',
    );
    await refused(
      t,
      call(t, 'POST', '/api/v1/events', eventBody({ metadata: { annotations } })),
      'metadata.annotations',
    );
    const lease = leaseBody('ann-1') as { metadata: Record<string, unknown> };
    await refused(
      t,
      call(t, 'POST', '/api/v1/leases', { ...lease, metadata: { ...lease.metadata, annotations } }),
      'metadata.annotations',
    );
    const fits = { 'a.io/big': 'x'.repeat(MAX_ANNOTATIONS_BYTES - 'a.io/big'.length) };
    assert.equal(
      (await call(t, 'POST', '/api/v1/nodes', { metadata: { name: 'ann-2', annotations: fits } })).status,
      201,
    );
  });

  it('bounds event messages, reasons, involvedObject and source fields', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ message: 'm'.repeat(MAX_EVENT_MESSAGE_CHARS + 1) }, 'message'],
      [{ reason: 'R'.repeat(MAX_REASON_CHARS + 1) }, 'reason'],
      [{ involvedObject: { kind: 'Node', name: 'node-1', uid: 'u'.repeat(65) } }, 'involvedObject.uid'],
      [{ involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'n'.repeat(64) } }, 'involvedObject.namespace'],
      [{ source: { component: 'c'.repeat(254) } }, 'source.component'],
      [{ source: { component: 'c', host: 'h'.repeat(254) } }, 'source.host'],
    ];
    for (const [extra, field] of cases) await refused(t, call(t, 'POST', '/api/v1/events', eventBody(extra)), field);
  });

  it('bounds a lease holderIdentity and metadata echoed back by clients', async () => {
    const body = leaseBody('hold-1') as { spec: Record<string, unknown>; metadata: Record<string, unknown> };
    await refused(
      t,
      call(t, 'POST', '/api/v1/leases', {
        ...body,
        spec: { ...body.spec, holderIdentity: 'h'.repeat(MAX_NAME_CHARS + 1) },
      }),
      'spec.holderIdentity',
    );
    await refused(
      t,
      call(t, 'POST', '/api/v1/leases', { ...body, metadata: { ...body.metadata, uid: 'u'.repeat(100_000) } }),
      'metadata.uid',
    );
  });
});

describe('zone labels must make a valid Zone name', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  const zoneLabel = 'metadata.labels[topology.kubernetes.io/zone]';
  const regionLabel = 'metadata.labels[topology.kubernetes.io/region]';

  it('refuses a zone or region label that is a valid label value but no Zone name, on create and PUT', async () => {
    const labels = (zone?: string, region?: string): Record<string, string> => ({
      ...(zone === undefined ? {} : { 'topology.kubernetes.io/zone': zone }),
      ...(region === undefined ? {} : { 'topology.kubernetes.io/region': region }),
    });
    const bad: [Record<string, string>, string][] = [
      [labels('Zone-A'), zoneLabel],
      [labels('zone_a'), zoneLabel],
      [labels(undefined, 'eu'), zoneLabel],
      [labels('a', 'EU_West'), regionLabel],
    ];
    for (const [l, field] of bad) {
      await refused(t, call(t, 'POST', '/api/v1/nodes', { metadata: { name: 'zl-1', labels: l } }), field);
    }
    const good = [labels('zone-a'), labels('a', 'eu-west'), labels(''), labels()];
    for (const [i, l] of good.entries()) {
      assert.equal(
        (await call(t, 'POST', '/api/v1/nodes', { metadata: { name: `zl-ok-${i}`, labels: l } })).status,
        201,
      );
    }
    const created = await call(t, 'POST', '/api/v1/nodes', nodeBody('zl-put'));
    await refused(
      t,
      call(t, 'PUT', '/api/v1/nodes/zl-put', {
        metadata: { name: 'zl-put', resourceVersion: created.body['metadata'].resourceVersion, labels: labels('Bad') },
      }),
      zoneLabel,
    );
  });

  it('still takes status updates of a node stored with such labels before the check existed', async () => {
    const stored = await t.store.create('nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'zl-old',
        uid: 'u',
        resourceVersion: '',
        creationTimestamp: '2026-11-29T12:00:00.000Z',
        labels: { 'topology.kubernetes.io/zone': 'Old_Zone' },
      },
      spec: {},
      status: {},
    });
    const res = await call(t, 'PUT', '/api/v1/nodes/zl-old/status', {
      ...stored,
      status: { conditions: [condition({})] },
    });
    assert.equal(res.status, 200);
  });
});
