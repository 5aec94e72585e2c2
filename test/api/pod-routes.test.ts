import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  call,
  nodeBody,
  podBody,
  snapshot,
  startTestServer,
  statusBodyOf,
  type Json,
  type TestServer,
} from './harness.js';

const NS = '/api/v1/namespaces';

describe('pods API', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await call(t, 'POST', '/api/v1/nodes', nodeBody('n1'));
    await call(t, 'POST', '/api/v1/nodes', nodeBody('n2'));
  });
  after(async () => {
    await t.close();
  });

  const create = (ns: string, name: string, extra: Record<string, unknown> = {}): Promise<Json> =>
    call(t, 'POST', `${NS}/${ns}/pods`, podBody(name, extra));
  const bind = (ns: string, name: string, node: string): Promise<Json> =>
    call(t, 'POST', `${NS}/${ns}/pods/${name}/binding`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name },
      target: { kind: 'Node', name: node },
    });

  it('creates a pod in the URL namespace with admission defaults and status Pending, whatever the body says', async () => {
    const res = await create('team-a', 'create-1', { status: { phase: 'Running' } });
    assert.equal(res.status, 201);
    const pod = res.body;
    assert.equal(pod['apiVersion'], 'v1');
    assert.equal(pod['kind'], 'Pod');
    assert.equal(pod['metadata'].namespace, 'team-a');
    assert.match(pod['metadata'].uid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(pod['status'], { phase: 'Pending' });
    assert.deepEqual(pod['spec'], {
      containers: [{ name: 'main', image: 'busybox' }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    });
    assert.deepEqual((await call(t, 'GET', `${NS}/team-a/pods/create-1`)).body, pod);
    assert.equal((await call(t, 'GET', `${NS}/other/pods/create-1`)).status, 404, 'namespaces do not share names');
  });

  it('keeps a toleration the pod already has instead of adding the default', async () => {
    const mine = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' };
    const res = await create('default', 'own-toleration', {
      spec: { containers: [{ name: 'main' }], tolerations: [mine] },
    });
    assert.deepEqual(
      res.body['spec'].tolerations.map((x: { key: string; tolerationSeconds?: number }) => [
        x.key,
        x.tolerationSeconds,
      ]),
      [
        ['node.kubernetes.io/unreachable', undefined],
        ['node.kubernetes.io/not-ready', 300],
      ],
    );
  });

  it('refuses bad bodies with 422 naming every field, a namespace mismatch with 400, and writes nothing', async () => {
    const before = await snapshot(t);
    const bad = await call(t, 'POST', `${NS}/default/pods`, {
      metadata: { name: 'Bad_Name', color: 'red' },
      spec: {
        containers: [{ name: 'main', cpu: 2 }],
        tolerations: [{ key: 'k', operator: 'Exists', value: 'v', effect: 'NoSchedule', tolerationSeconds: 5 }],
        restartPolicy: 'Sometimes',
      },
    });
    assert.equal(bad.status, 422);
    const fields = (statusBodyOf(bad).details.causes as { field: string }[]).map((c) => c.field).sort();
    assert.deepEqual(fields, [
      'metadata.color',
      'metadata.name',
      'spec.containers[0].cpu',
      'spec.restartPolicy',
      'spec.tolerations[0].tolerationSeconds',
      'spec.tolerations[0].value',
    ]);
    const noContainers = await call(t, 'POST', `${NS}/default/pods`, { metadata: { name: 'x' }, spec: {} });
    assert.equal(noContainers.status, 422);
    const mismatch = await create('default', 'ns-mismatch', { metadata: { name: 'ns-mismatch', namespace: 'other' } });
    assert.equal(mismatch.status, 400);
    const badNs = await create('Not.A.Label', 'bad-ns');
    assert.equal(badNs.status, 422);
    assert.equal(statusBodyOf(badNs).details.causes[0].field, 'metadata.namespace');
    assert.equal(await snapshot(t), before);
  });

  it('lists one namespace or all, with field selectors on spec.nodeName, status.phase and metadata.namespace', async () => {
    await create('sel-a', 'p1');
    await create('sel-a', 'p2');
    await create('sel-b', 'p3', { metadata: { name: 'p3', labels: { app: 'db' } } });
    await bind('sel-a', 'p1', 'n1');
    await bind('sel-b', 'p3', 'n1');
    const names = (res: Json): string[] =>
      res.body['items'].map(
        (p: { metadata: { namespace: string; name: string } }) => `${p.metadata.namespace}/${p.metadata.name}`,
      );
    const inA = await call(t, 'GET', `${NS}/sel-a/pods`);
    assert.equal(inA.body['kind'], 'PodList');
    assert.deepEqual(names(inA), ['sel-a/p1', 'sel-a/p2']);
    const onN1 = await call(t, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName=n1');
    assert.deepEqual(names(onN1), ['sel-a/p1', 'sel-b/p3']);
    const pendingB = await call(t, 'GET', '/api/v1/pods?fieldSelector=metadata.namespace=sel-b,status.phase=Pending');
    assert.deepEqual(names(pendingB), ['sel-b/p3']);
    const unbound = await call(t, 'GET', `${NS}/sel-a/pods?fieldSelector=spec.nodeName=`);
    assert.deepEqual(names(unbound), ['sel-a/p2']);
    const db = await call(t, 'GET', '/api/v1/pods?labelSelector=app=db');
    assert.deepEqual(names(db), ['sel-b/p3']);
    const byName = await call(t, 'GET', '/api/v1/pods?fieldSelector=metadata.name=p2');
    assert.deepEqual(names(byName), ['sel-a/p2']);
  });

  it('PUT replaces labels and adds tolerations; status, nodeName and other spec fields stay', async () => {
    const created = (await create('default', 'put-1')).body;
    const bound = (await bind('default', 'put-1', 'n1')).body;
    const extra = { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' };
    const { nodeName: _n, ...specWithoutNode } = bound['spec'];
    const res = await call(t, 'PUT', `${NS}/default/pods/put-1`, {
      metadata: { ...bound['metadata'], labels: { app: 'web', tier: 'front' } },
      spec: { ...specWithoutNode, tolerations: [...bound['spec'].tolerations, extra] },
      status: { phase: 'Failed' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body['metadata'].labels, { app: 'web', tier: 'front' });
    assert.equal(res.body['metadata'].uid, created['metadata'].uid);
    assert.equal(res.body['spec'].nodeName, 'n1');
    assert.deepEqual(res.body['spec'].tolerations.at(-1), extra);
    assert.deepEqual(res.body['status'], bound['status']);
  });

  it('PUT refuses spec changes with 422 and writes nothing', async () => {
    const mine = { key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' };
    await create('default', 'put-2', { spec: { containers: [{ name: 'main' }], tolerations: [mine] } });
    const pod = (await bind('default', 'put-2', 'n1')).body;
    const before = await snapshot(t);
    const put = (spec: Record<string, unknown>): Promise<Json> =>
      call(t, 'PUT', `${NS}/default/pods/put-2`, { metadata: pod['metadata'], spec: { ...pod['spec'], ...spec } });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ containers: [{ name: 'main', image: 'nginx' }] }, 'spec'],
      [{ nodeName: 'n2' }, 'spec.nodeName'],
      [{ tolerations: pod['spec'].tolerations.slice(1) }, 'spec.tolerations'],
      [{ tolerations: [{ ...mine, effect: 'NoExecute' }, ...pod['spec'].tolerations.slice(1)] }, 'spec.tolerations'],
      [{ terminationGracePeriodSeconds: 5 }, 'spec'],
    ];
    for (const [change, field] of cases) {
      const res = await put(change);
      assert.equal(res.status, 422, JSON.stringify(change));
      assert.deepEqual(
        statusBodyOf(res).details.causes.map((c: { field: string }) => c.field),
        [field],
      );
    }
    const stale = await call(t, 'PUT', `${NS}/default/pods/put-2`, {
      metadata: { ...pod['metadata'], resourceVersion: '1' },
      spec: pod['spec'],
    });
    assert.equal(stale.status, 409);
    assert.equal(await snapshot(t), before);
  });

  it('PUT …/status replaces status only; a finished pod cannot run again', async () => {
    const pod = (await create('default', 'status-1')).body;
    const running = {
      phase: 'Running',
      hostIP: '10.0.0.1',
      startTime: '2026-11-29T12:00:01.000Z',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-29T12:00:02.000Z' }],
      containerStatuses: [{ name: 'main', ready: true, restartCount: 0, state: { running: {} } }],
    };
    const res = await call(t, 'PUT', `${NS}/default/pods/status-1/status`, {
      metadata: { ...pod['metadata'], labels: { ignored: 'yes' } },
      status: running,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body['status'], running);
    assert.deepEqual(res.body['metadata'].labels, { app: 'web' });
    assert.deepEqual(res.body['spec'], pod['spec']);
    const failed = await call(t, 'PUT', `${NS}/default/pods/status-1/status`, {
      metadata: res.body['metadata'],
      status: { phase: 'Failed', reason: 'Error' },
    });
    assert.equal(failed.status, 200);
    const before = await snapshot(t);
    const again = await call(t, 'PUT', `${NS}/default/pods/status-1/status`, {
      metadata: failed.body['metadata'],
      status: { phase: 'Running' },
    });
    assert.equal(again.status, 422);
    assert.equal(statusBodyOf(again).details.causes[0].field, 'status.phase');
    const noStatus = await call(t, 'PUT', `${NS}/default/pods/status-1/status`, { metadata: failed.body['metadata'] });
    assert.equal(noStatus.status, 422);
    assert.equal(await snapshot(t), before);
  });

  it('binding sets nodeName and PodScheduled True and answers 201 with the pod', async () => {
    await create('default', 'bind-1');
    const res = await bind('default', 'bind-1', 'n2');
    assert.equal(res.status, 201);
    assert.equal(res.body['kind'], 'Pod');
    assert.equal(res.body['spec'].nodeName, 'n2');
    assert.deepEqual(res.body['status'].conditions, [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-11-29T12:00:00.000Z' },
    ]);
    assert.deepEqual((await call(t, 'GET', `${NS}/default/pods/bind-1`)).body, res.body);
  });

  it('binding refuses: a bound pod 409, a missing node 422, a missing pod 404, a name mismatch 400; writes nothing', async () => {
    await create('default', 'bind-2');
    await bind('default', 'bind-2', 'n1');
    const before = await snapshot(t);
    const again = await bind('default', 'bind-2', 'n2');
    assert.equal(again.status, 409);
    assert.equal(statusBodyOf(again).reason, 'Conflict');
    assert.match(statusBodyOf(again).message, /already bound to node "n1"/);
    const noNode = await bind('default', 'bind-2', 'ghost');
    assert.equal(noNode.status, 422);
    assert.equal(statusBodyOf(noNode).details.causes[0].field, 'target.name');
    assert.match(statusBodyOf(noNode).message, /node "ghost" does not exist/);
    assert.equal((await bind('default', 'nobody', 'n1')).status, 404);
    const mismatch = await call(t, 'POST', `${NS}/default/pods/bind-2/binding`, {
      metadata: { name: 'other' },
      target: { name: 'n1' },
    });
    assert.equal(mismatch.status, 400);
    const unknown = await call(t, 'POST', `${NS}/default/pods/bind-2/binding`, {
      metadata: { name: 'bind-2' },
      target: { name: 'n1', zone: 'a' },
    });
    assert.equal(unknown.status, 422);
    assert.equal(await snapshot(t), before);
  });
});
