import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, leaseBody, nodeBody, snapshot, startTestServer, statusBodyOf, type TestServer } from './harness.js';

const READY = {
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'AgentReady',
      message: 'ok',
      lastHeartbeatTime: '2026-11-29T12:00:00.000Z',
    },
  ],
};

describe('nodes API', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('creates a node with server-set metadata and defaults, ignoring client uid and resourceVersion', async () => {
    const res = await call(t, 'POST', '/api/v1/nodes', {
      metadata: { name: 'create-1', uid: 'mine', resourceVersion: '999' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body['apiVersion'], 'v1');
    assert.equal(res.body['kind'], 'Node');
    assert.notEqual(res.body['metadata'].uid, 'mine');
    assert.match(res.body['metadata'].uid, /^[0-9a-f-]{36}$/);
    assert.notEqual(res.body['metadata'].resourceVersion, '999');
    assert.equal(res.body['metadata'].resourceVersion, String(await t.store.currentRevision()));
    assert.equal(res.body['metadata'].creationTimestamp, '2026-11-29T12:00:00.000Z');
    assert.deepEqual(res.body['spec'], {});
    assert.deepEqual(res.body['status'], {});
    const got = await call(t, 'GET', '/api/v1/nodes/create-1');
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, res.body);
  });

  it('answers 409 AlreadyExists for a taken name and writes nothing', async () => {
    await call(t, 'POST', '/api/v1/nodes', nodeBody('dup-1'));
    const before = await snapshot(t);
    const res = await call(t, 'POST', '/api/v1/nodes', nodeBody('dup-1', { spec: { unschedulable: true } }));
    assert.equal(res.status, 409);
    assert.equal(statusBodyOf(res).reason, 'AlreadyExists');
    assert.equal(await snapshot(t), before);
  });

  it('answers 404 NotFound for an unknown node', async () => {
    const res = await call(t, 'GET', '/api/v1/nodes/nope');
    assert.equal(res.status, 404);
    const s = statusBodyOf(res);
    assert.equal(s.reason, 'NotFound');
    assert.equal(s.details.name, 'nope');
  });

  it('PUT replaces labels and spec, keeps uid, creationTimestamp and the stored status', async () => {
    const created = (await call(t, 'POST', '/api/v1/nodes', nodeBody('put-1', { status: READY }))).body;
    const res = await call(t, 'PUT', '/api/v1/nodes/put-1', {
      metadata: {
        name: 'put-1',
        resourceVersion: created['metadata'].resourceVersion,
        uid: 'other',
        labels: { role: 'db' },
      },
      spec: { unschedulable: true },
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body['metadata'].uid, created['metadata'].uid);
    assert.equal(res.body['metadata'].creationTimestamp, created['metadata'].creationTimestamp);
    assert.deepEqual(res.body['metadata'].labels, { role: 'db' });
    assert.deepEqual(res.body['spec'], { unschedulable: true });
    assert.deepEqual(res.body['status'], READY);
    assert.ok(Number(res.body['metadata'].resourceVersion) > Number(created['metadata'].resourceVersion));
  });

  it('PUT /status replaces status only and ignores metadata and spec', async () => {
    const created = (await call(t, 'POST', '/api/v1/nodes', nodeBody('status-1'))).body;
    const res = await call(t, 'PUT', '/api/v1/nodes/status-1/status', {
      metadata: { name: 'status-1', resourceVersion: created['metadata'].resourceVersion, labels: { sneaky: 'yes' } },
      spec: { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: READY,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body['status'], READY);
    assert.deepEqual(res.body['spec'], {});
    assert.deepEqual(res.body['metadata'].labels, created['metadata'].labels);
  });

  it('PUT with a stale resourceVersion is 409 Conflict and writes nothing', async () => {
    const created = (await call(t, 'POST', '/api/v1/nodes', nodeBody('conflict-1'))).body;
    const rv = created['metadata'].resourceVersion as string;
    await call(t, 'PUT', '/api/v1/nodes/conflict-1', {
      metadata: { name: 'conflict-1', resourceVersion: rv },
      spec: { unschedulable: true },
    });
    const before = await snapshot(t);
    for (const url of ['/api/v1/nodes/conflict-1', '/api/v1/nodes/conflict-1/status']) {
      const res = await call(t, 'PUT', url, {
        metadata: { name: 'conflict-1', resourceVersion: rv },
        spec: {},
        status: READY,
      });
      assert.equal(res.status, 409, url);
      assert.equal(statusBodyOf(res).reason, 'Conflict');
    }
    assert.equal(await snapshot(t), before);
  });

  it('PUT without metadata.resourceVersion is 422 Invalid naming the field, and writes nothing', async () => {
    await call(t, 'POST', '/api/v1/nodes', nodeBody('norv-1'));
    const before = await snapshot(t);
    const res = await call(t, 'PUT', '/api/v1/nodes/norv-1', {
      metadata: { name: 'norv-1' },
      spec: { unschedulable: true },
    });
    assert.equal(res.status, 422);
    const s = statusBodyOf(res);
    assert.equal(s.reason, 'Invalid');
    assert.deepEqual(s.details.causes, [
      { field: 'metadata.resourceVersion', message: 'must be specified for an update' },
    ]);
    assert.equal(await snapshot(t), before);
  });

  it('PUT whose body names another object is 400 BadRequest and writes nothing', async () => {
    const created = (await call(t, 'POST', '/api/v1/nodes', nodeBody('url-1'))).body;
    await call(t, 'POST', '/api/v1/nodes', nodeBody('url-2'));
    const before = await snapshot(t);
    const res = await call(t, 'PUT', '/api/v1/nodes/url-2', {
      metadata: { name: 'url-1', resourceVersion: created['metadata'].resourceVersion },
    });
    assert.equal(res.status, 400);
    assert.equal(statusBodyOf(res).reason, 'BadRequest');
    assert.equal(await snapshot(t), before);
  });

  it('PUT on a missing node is 404', async () => {
    const res = await call(t, 'PUT', '/api/v1/nodes/ghost', { metadata: { name: 'ghost', resourceVersion: '1' } });
    assert.equal(res.status, 404);
    assert.equal(statusBodyOf(res).reason, 'NotFound');
  });

  it('DELETE answers the last state and deletes the node lease too', async () => {
    await call(t, 'POST', '/api/v1/nodes', nodeBody('del-1'));
    assert.equal((await call(t, 'POST', '/api/v1/leases', leaseBody('del-1'))).status, 201);
    await call(t, 'POST', '/api/v1/namespaces/shepherd-system/leases', leaseBody('del-1'));
    const res = await call(t, 'DELETE', '/api/v1/nodes/del-1');
    assert.equal(res.status, 200);
    assert.equal(res.body['metadata'].name, 'del-1');
    assert.equal(res.body['kind'], 'Node');
    assert.equal((await call(t, 'GET', '/api/v1/nodes/del-1')).status, 404);
    assert.equal((await call(t, 'GET', '/api/v1/leases/del-1')).status, 404);
    // Only the node's own lease (namespace node-lease) goes with it.
    assert.equal((await call(t, 'GET', '/api/v1/namespaces/shepherd-system/leases/del-1')).status, 200);
  });

  it('DELETE of a node without a lease succeeds; of a missing node is 404', async () => {
    await call(t, 'POST', '/api/v1/nodes', nodeBody('del-2'));
    assert.equal((await call(t, 'DELETE', '/api/v1/nodes/del-2')).status, 200);
    const res = await call(t, 'DELETE', '/api/v1/nodes/del-2');
    assert.equal(res.status, 404);
    assert.equal(statusBodyOf(res).reason, 'NotFound');
  });

  it('lists with labelSelector and fieldSelector, carrying the store revision', async () => {
    await call(t, 'POST', '/api/v1/nodes', { metadata: { name: 'sel-a', labels: { tier: 'sel', zone: 'a' } } });
    await call(t, 'POST', '/api/v1/nodes', { metadata: { name: 'sel-b', labels: { tier: 'sel', zone: 'b' } } });
    await call(t, 'POST', '/api/v1/nodes', { metadata: { name: 'sel-c', labels: { tier: 'other' } } });
    const names = async (q: string): Promise<string[]> => {
      const res = await call(t, 'GET', `/api/v1/nodes?${q}`);
      assert.equal(res.status, 200);
      assert.equal(res.body['kind'], 'NodeList');
      assert.equal(res.body['metadata'].resourceVersion, String(await t.store.currentRevision()));
      return (res.body['items'] as { metadata: { name: string } }[]).map((n) => n.metadata.name);
    };
    assert.deepEqual(await names('labelSelector=tier%3Dsel'), ['sel-a', 'sel-b']);
    assert.deepEqual(await names('labelSelector=tier%3Dsel,zone!%3Da'), ['sel-b']);
    assert.deepEqual(await names('labelSelector=tier%20in%20(sel,other),!zone'), ['sel-c']);
    assert.deepEqual(await names('fieldSelector=metadata.name%3Dsel-b'), ['sel-b']);
    const bad = await call(t, 'GET', '/api/v1/nodes?labelSelector=a%20b%20c');
    assert.equal(bad.status, 400);
    assert.equal(statusBodyOf(bad).reason, 'BadRequest');
  });

  it('status carries capacity and allocatable as Kubernetes quantities; anything else is 422 naming the field', async () => {
    const resources = { cpu: '2', memory: '24576Mi', pods: '110' };
    const created = await call(t, 'POST', '/api/v1/nodes', {
      ...nodeBody('cap-1'),
      status: { capacity: resources, allocatable: { cpu: '1500m', memory: '20Gi', pods: '110' } },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body['status'].capacity, resources);
    const before = await snapshot(t);
    const bad = await call(t, 'PUT', '/api/v1/nodes/cap-1/status', {
      metadata: created.body['metadata'],
      status: { capacity: { cpu: 'two', memory: '-1Gi', gpu: '1' }, allocatable: { pods: 110 } },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(
      statusBodyOf(bad)
        .details.causes.map((c: { field: string }) => c.field)
        .sort(),
      ['status.allocatable.pods', 'status.capacity.cpu', 'status.capacity.gpu', 'status.capacity.memory'],
    );
    assert.equal(await snapshot(t), before);
  });
});
