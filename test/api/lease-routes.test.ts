import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, leaseBody, snapshot, startTestServer, statusBodyOf, type TestServer } from './harness.js';

describe('leases API', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('POST /api/v1/leases creates in namespace node-lease, readable under both paths', async () => {
    const res = await call(t, 'POST', '/api/v1/leases', leaseBody('n1'));
    assert.equal(res.status, 201);
    assert.equal(res.body['apiVersion'], 'coordination/v1');
    assert.equal(res.body['kind'], 'Lease');
    assert.equal(res.body['metadata'].namespace, 'node-lease');
    assert.deepEqual((await call(t, 'GET', '/api/v1/leases/n1')).body, res.body);
    assert.deepEqual((await call(t, 'GET', '/api/v1/namespaces/node-lease/leases/n1')).body, res.body);
  });

  it('keeps shepherd-system leases apart from node leases', async () => {
    const res = await call(t, 'POST', '/api/v1/namespaces/shepherd-system/leases', leaseBody('leader'));
    assert.equal(res.status, 201);
    assert.equal(res.body['metadata'].namespace, 'shepherd-system');
    assert.equal((await call(t, 'GET', '/api/v1/leases/leader')).status, 404);
    const sys = await call(t, 'GET', '/api/v1/namespaces/shepherd-system/leases');
    assert.equal(sys.body['kind'], 'LeaseList');
    assert.deepEqual(
      sys.body['items'].map((l: { metadata: { name: string } }) => l.metadata.name),
      ['leader'],
    );
    const nodeLeases = await call(t, 'GET', '/api/v1/leases');
    assert.ok(
      nodeLeases.body['items'].every((l: { metadata: { namespace: string } }) => l.metadata.namespace === 'node-lease'),
    );
  });

  it('refuses other namespaces (422) and a body namespace that differs from the URL (400); nothing is written', async () => {
    const before = await snapshot(t);
    const other = await call(t, 'POST', '/api/v1/namespaces/default/leases', leaseBody('x1'));
    assert.equal(other.status, 422);
    assert.equal(statusBodyOf(other).details.causes[0].field, 'metadata.namespace');
    const mismatch = await call(t, 'POST', '/api/v1/leases', {
      ...leaseBody('x2'),
      metadata: { name: 'x2', namespace: 'shepherd-system' },
    });
    assert.equal(mismatch.status, 400);
    assert.equal(statusBodyOf(mismatch).reason, 'BadRequest');
    assert.equal(await snapshot(t), before);
  });

  it('renews with PUT: spec replaced, identity kept, stale resourceVersion is 409 and writes nothing', async () => {
    const created = (await call(t, 'POST', '/api/v1/leases', leaseBody('renew-1'))).body;
    const rv = created['metadata'].resourceVersion as string;
    const renewed = await call(t, 'PUT', '/api/v1/leases/renew-1', {
      metadata: { name: 'renew-1', resourceVersion: rv },
      spec: { holderIdentity: 'renew-1', leaseDurationSeconds: 40, renewTime: '2026-11-29T12:00:10.000000Z' },
    });
    assert.equal(renewed.status, 200);
    assert.equal(renewed.body['spec'].renewTime, '2026-11-29T12:00:10.000000Z');
    assert.equal(renewed.body['metadata'].uid, created['metadata'].uid);
    assert.equal(renewed.body['metadata'].namespace, 'node-lease');
    assert.equal(renewed.body['metadata'].creationTimestamp, created['metadata'].creationTimestamp);
    const before = await snapshot(t);
    const stale = await call(t, 'PUT', '/api/v1/leases/renew-1', {
      metadata: { name: 'renew-1', resourceVersion: rv },
      spec: created['spec'],
    });
    assert.equal(stale.status, 409);
    assert.equal(statusBodyOf(stale).reason, 'Conflict');
    const missing = await call(t, 'PUT', '/api/v1/leases/renew-1', {
      metadata: { name: 'renew-1' },
      spec: created['spec'],
    });
    assert.equal(missing.status, 422);
    assert.equal(statusBodyOf(missing).details.causes[0].field, 'metadata.resourceVersion');
    const invalid = await call(t, 'PUT', '/api/v1/leases/renew-1', {
      metadata: { name: 'renew-1', resourceVersion: renewed.body['metadata'].resourceVersion },
      spec: { holderIdentity: 'renew-1', leaseDurationSeconds: 0, renewTime: 'yesterday' },
    });
    assert.equal(invalid.status, 422);
    assert.deepEqual(
      statusBodyOf(invalid)
        .details.causes.map((c: { field: string }) => c.field)
        .sort(),
      ['spec.leaseDurationSeconds', 'spec.renewTime'],
    );
    assert.equal(await snapshot(t), before);
  });

  it('DELETE answers the last state; in a namespaced path too', async () => {
    await call(t, 'POST', '/api/v1/namespaces/shepherd-system/leases', leaseBody('gone'));
    const res = await call(t, 'DELETE', '/api/v1/namespaces/shepherd-system/leases/gone');
    assert.equal(res.status, 200);
    assert.equal(res.body['metadata'].name, 'gone');
    assert.equal((await call(t, 'GET', '/api/v1/namespaces/shepherd-system/leases/gone')).status, 404);
  });

  it('DELETE with a stale precondition is 409 and keeps the lease', async () => {
    const created = (await call(t, 'POST', '/api/v1/leases', leaseBody('pre-1'))).body;
    await call(t, 'PUT', '/api/v1/leases/pre-1', {
      metadata: { name: 'pre-1', resourceVersion: created['metadata'].resourceVersion },
      spec: created['spec'],
    });
    const res = await call(t, 'DELETE', '/api/v1/leases/pre-1', {
      preconditions: { resourceVersion: created['metadata'].resourceVersion },
    });
    assert.equal(res.status, 409);
    assert.equal((await call(t, 'GET', '/api/v1/leases/pre-1')).status, 200);
  });
});
