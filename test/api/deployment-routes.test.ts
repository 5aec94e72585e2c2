import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { collectOrphanPods } from '../../src/registry/orphan-gc.js';
import type { JsonObject } from '../support/json.js';
import {
  call,
  deploymentBody,
  nodeBody,
  podBody,
  snapshot,
  startTestServer,
  statusBodyOf,
  type TestServer,
} from './harness.js';

const APPS = '/apis/apps/v1/namespaces';
const PODS = '/api/v1/namespaces';

describe('deployments API', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await call(t, 'POST', '/api/v1/nodes', nodeBody('n1'));
  });
  after(async () => {
    await t.close();
  });

  /** A pod in `ns` owned by `owner` (a Deployment as stored), bound to n1 unless `bound` is false. */
  const ownedPod = async (ns: string, name: string, owner: JsonObject, bound = true): Promise<void> => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: owner['metadata'].name, uid: owner['metadata'].uid };
    const res = await call(t, 'POST', `${PODS}/${ns}/pods`, {
      ...podBody(name),
      metadata: { name, labels: { app: 'web' }, ownerReferences: [{ ...ref, controller: true }] },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    if (bound)
      await call(t, 'POST', `${PODS}/${ns}/pods/${name}/binding`, { metadata: { name }, target: { name: 'n1' } });
  };

  it('creates with defaults, generation 1 and an empty status; reads at its namespaced and all-namespace paths', async () => {
    const res = await call(t, 'POST', `${APPS}/team-a/deployments`, {
      ...deploymentBody('web'),
      status: { replicas: 9 },
    });
    assert.equal(res.status, 201);
    const d = res.body;
    assert.equal(d['apiVersion'], 'apps/v1');
    assert.equal(d['kind'], 'Deployment');
    assert.equal(d['metadata'].namespace, 'team-a');
    assert.equal(d['metadata'].generation, 1);
    assert.deepEqual(d['status'], {});
    assert.deepEqual(d['spec'].strategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    assert.equal(d['spec'].template.spec.restartPolicy, 'Always');
    assert.deepEqual((await call(t, 'GET', `${APPS}/team-a/deployments/web`)).body, d);
    const all = await call(t, 'GET', '/apis/apps/v1/deployments?fieldSelector=metadata.namespace=team-a');
    assert.equal(all.body['kind'], 'DeploymentList');
    assert.deepEqual(
      all.body['items'].map((x: JsonObject) => x['metadata'].name),
      ['web'],
    );
  });

  it('refuses an invalid spec with 422 naming the fields and writes nothing', async () => {
    const before = await snapshot(t);
    const res = await call(t, 'POST', `${APPS}/default/deployments`, {
      metadata: { name: 'bad' },
      spec: {
        replicas: -1,
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'y' } }, spec: { containers: [{ name: 'main' }] } },
        strategy: { type: 'Recreate', rollingUpdate: {} },
        paused: true,
      },
    });
    assert.equal(res.status, 422);
    const fields = statusBodyOf(res)
      .details.causes.map((c: { field: string }) => c.field)
      .sort();
    assert.deepEqual(fields, [
      'spec.paused',
      'spec.replicas',
      'spec.strategy.rollingUpdate',
      'spec.template.metadata.labels',
    ]);
    assert.equal(await snapshot(t), before);
  });

  it('PUT bumps generation when the spec changes, not for labels; status is kept; PUT /status replaces status only', async () => {
    const d = (await call(t, 'POST', `${APPS}/default/deployments`, deploymentBody('gen'))).body;
    const labelled = await call(t, 'PUT', `${APPS}/default/deployments/gen`, {
      metadata: { ...d['metadata'], labels: { team: 'a' } },
      spec: deploymentBody('gen')['spec'],
    });
    assert.equal(labelled.status, 200);
    assert.equal(labelled.body['metadata'].generation, 1, 'the defaulted spec is the same spec');
    const status = { observedGeneration: 1, replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 };
    const st = await call(t, 'PUT', `${APPS}/default/deployments/gen/status`, {
      metadata: labelled.body['metadata'],
      spec: { replicas: 100 },
      status,
    });
    assert.equal(st.status, 422, 'a spec sent to /status must still be well-formed');
    const st2 = await call(t, 'PUT', `${APPS}/default/deployments/gen/status`, {
      metadata: labelled.body['metadata'],
      status,
    });
    assert.equal(st2.status, 200);
    assert.deepEqual(st2.body['status'], status);
    assert.equal(st2.body['metadata'].generation, 1);
    const scaled = await call(t, 'PUT', `${APPS}/default/deployments/gen`, {
      metadata: st2.body['metadata'],
      spec: { ...st2.body['spec'], replicas: 5 },
      status: {},
    });
    assert.equal(scaled.body['metadata'].generation, 2);
    assert.deepEqual(scaled.body['status'], status);
    assert.deepEqual(scaled.body['metadata'].labels, { team: 'a' });
  });

  it('DELETE cascades to the pods it owns (gracefully when bound), and to no other pod', async () => {
    const d = (await call(t, 'POST', `${APPS}/cascade/deployments`, deploymentBody('web'))).body;
    const other = (await call(t, 'POST', `${APPS}/cascade/deployments`, deploymentBody('db'))).body;
    await ownedPod('cascade', 'web-bound', d);
    await ownedPod('cascade', 'web-pending', d, false);
    await ownedPod('cascade', 'db-1', other);
    await call(t, 'POST', `${PODS}/cascade/pods`, podBody('loose'));
    const res = await call(t, 'DELETE', `${APPS}/cascade/deployments/web`);
    assert.equal(res.status, 200);
    assert.equal(res.body['metadata'].uid, d['metadata'].uid);
    assert.equal((await call(t, 'GET', `${APPS}/cascade/deployments/web`)).status, 404);
    const pods = new Map<string, JsonObject>(
      (await call(t, 'GET', `${PODS}/cascade/pods`)).body['items'].map((p: JsonObject) => [p['metadata'].name, p]),
    );
    assert.deepEqual([...pods.keys()].sort(), ['db-1', 'loose', 'web-bound']);
    assert.ok(pods.get('web-bound')?.['metadata'].deletionTimestamp, 'the bound pod is terminating');
    assert.equal(pods.get('db-1')?.['metadata'].deletionTimestamp, undefined);
    assert.equal(pods.get('loose')?.['metadata'].deletionTimestamp, undefined);
  });

  it('the orphan collector deletes pods whose Deployment is gone, even ones created after the cascade', async () => {
    const d = (await call(t, 'POST', `${APPS}/orphans/deployments`, deploymentBody('web'))).body;
    const kept = (await call(t, 'POST', `${APPS}/orphans/deployments`, deploymentBody('db'))).body;
    await call(t, 'DELETE', `${APPS}/orphans/deployments/web`);
    // A controller that had not seen the deletion yet creates a replica afterwards.
    await ownedPod('orphans', 'late-bound', d);
    await ownedPod('orphans', 'late-pending', d, false);
    await ownedPod('orphans', 'db-1', kept);
    // Same uid, other namespace: owners are looked up in the pod's own namespace.
    await ownedPod('elsewhere', 'foreign', kept, false);
    assert.equal(await collectOrphanPods(t.server.registry), 3);
    const names = (await call(t, 'GET', '/api/v1/pods?fieldSelector=metadata.namespace=orphans')).body['items'].map(
      (p: JsonObject) => `${p['metadata'].name}${p['metadata'].deletionTimestamp ? ' (terminating)' : ''}`,
    );
    assert.deepEqual(names, ['db-1', 'late-bound (terminating)']);
    assert.equal((await call(t, 'GET', `${PODS}/elsewhere/pods/foreign`)).status, 404);
    assert.equal(await collectOrphanPods(t.server.registry), 0, 'a terminating pod is left to its agent');
  });
});
