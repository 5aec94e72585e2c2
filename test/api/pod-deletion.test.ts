import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FakeClock } from '../support/fake-clock.js';
import type { JsonObject } from '../support/json.js';
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
import { openWatch } from './watch-client.js';

const PODS = '/api/v1/namespaces/default/pods';

describe('pods API: graceful deletion, admission on update, watch', () => {
  let t: TestServer;
  let clock: FakeClock;
  before(async () => {
    t = await startTestServer();
    clock = t.clock as FakeClock;
    await call(t, 'POST', '/api/v1/nodes', nodeBody('n1'));
  });
  after(async () => {
    await t.close();
  });

  /** A pod bound to `node` (created, then bound). */
  const boundPod = async (name: string, node = 'n1', extra: Record<string, unknown> = {}): Promise<JsonObject> => {
    await call(t, 'POST', PODS, podBody(name, extra));
    const res = await call(t, 'POST', `${PODS}/${name}/binding`, { metadata: { name }, target: { name: node } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };
  const del = (name: string, query = '', body?: unknown): Promise<Json> =>
    call(t, 'DELETE', `${PODS}/${name}${query}`, body);
  const exists = async (name: string): Promise<boolean> => (await call(t, 'GET', `${PODS}/${name}`)).status === 200;

  it('DELETE of a pod bound to a live node marks it (now + grace) and answers 200 with it; the pod stays', async () => {
    await boundPod('g-1');
    const res = await del('g-1');
    assert.equal(res.status, 200);
    assert.equal(res.body['metadata'].deletionTimestamp, '2026-11-29T12:00:30.000Z');
    assert.equal(res.body['metadata'].deletionGracePeriodSeconds, 30);
    assert.deepEqual((await call(t, 'GET', `${PODS}/g-1`)).body, res.body);
  });

  it("takes the grace from ?gracePeriodSeconds, else the body, else the pod's terminationGracePeriodSeconds", async () => {
    await boundPod('g-2');
    assert.equal((await del('g-2', '?gracePeriodSeconds=12')).body['metadata'].deletionGracePeriodSeconds, 12);
    await boundPod('g-3');
    assert.equal((await del('g-3', '', { gracePeriodSeconds: 9 })).body['metadata'].deletionGracePeriodSeconds, 9);
    await boundPod('g-4', 'n1', { spec: { containers: [{ name: 'main' }], terminationGracePeriodSeconds: 4 } });
    assert.equal((await del('g-4')).body['metadata'].deletionGracePeriodSeconds, 4);
  });

  it('a second DELETE may shorten the grace, never lengthen it; gracePeriodSeconds=0 then removes the pod', async () => {
    await boundPod('g-5');
    const first = (await del('g-5', '?gracePeriodSeconds=30')).body;
    await clock.advance(10_000);
    const longer = await del('g-5', '?gracePeriodSeconds=60');
    assert.equal(longer.status, 200);
    assert.deepEqual(longer.body, first, 'nothing written');
    const shorter = await del('g-5', '?gracePeriodSeconds=5');
    assert.equal(shorter.body['metadata'].deletionGracePeriodSeconds, 5);
    assert.equal(shorter.body['metadata'].deletionTimestamp, '2026-11-29T12:00:05.000Z', 'first request + 5 s');
    const gone = await del('g-5', '?gracePeriodSeconds=0');
    assert.equal(gone.status, 200);
    assert.equal(await exists('g-5'), false);
  });

  it('removes at once: grace 0, a pod on no node, a node that is gone, an out-of-service node, a finished pod', async () => {
    await boundPod('now-1');
    assert.equal((await del('now-1', '?gracePeriodSeconds=0')).status, 200);
    await call(t, 'POST', PODS, podBody('now-2'));
    assert.equal((await del('now-2')).status, 200);
    await call(t, 'POST', '/api/v1/nodes', nodeBody('gone'));
    await boundPod('now-3', 'gone');
    await call(t, 'DELETE', '/api/v1/nodes/gone');
    assert.equal((await del('now-3')).status, 200);
    await call(t, 'POST', '/api/v1/nodes', nodeBody('oos'));
    await boundPod('now-4', 'oos');
    const oos = (await call(t, 'GET', '/api/v1/nodes/oos')).body;
    const taint = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };
    assert.equal((await call(t, 'PUT', '/api/v1/nodes/oos', { ...oos, spec: { taints: [taint] } })).status, 200);
    assert.equal((await del('now-4')).status, 200);
    const done = await boundPod('now-5');
    const put = await call(t, 'PUT', `${PODS}/now-5/status`, {
      metadata: done['metadata'],
      status: { phase: 'Succeeded' },
    });
    assert.equal(put.status, 200);
    assert.equal((await del('now-5')).status, 200);
    for (const name of ['now-1', 'now-2', 'now-3', 'now-4', 'now-5']) assert.equal(await exists(name), false, name);
  });

  it('a resourceVersion precondition that is stale is 409; a bad grace is 400; both write nothing', async () => {
    const pod = await boundPod('pre-1');
    const before = await snapshot(t);
    const stale = await del('pre-1', '', { preconditions: { resourceVersion: '1' } });
    assert.equal(stale.status, 409);
    for (const q of ['?gracePeriodSeconds=-1', '?gracePeriodSeconds=soon', '?gracePeriodSeconds=1.5']) {
      assert.equal((await del('pre-1', q)).status, 400, q);
    }
    assert.equal((await del('pre-1', '', { gracePeriodSeconds: -3 })).status, 400);
    assert.equal(await snapshot(t), before);
    const ok = await del('pre-1', '', { preconditions: { resourceVersion: pod['metadata'].resourceVersion } });
    assert.equal(ok.status, 200);
    assert.ok(ok.body['metadata'].deletionTimestamp);
  });

  it('a terminating pod cannot be bound, and keeps its deletion fields through a PUT', async () => {
    await call(t, 'POST', PODS, podBody('term-1'));
    const pod = await boundPod('term-2');
    const marked = (await del('term-2')).body;
    const put = await call(t, 'PUT', `${PODS}/term-2`, {
      metadata: { ...marked['metadata'], deletionTimestamp: undefined, labels: { x: 'y' } },
      spec: pod['spec'],
    });
    assert.equal(put.status, 200);
    assert.equal(put.body['metadata'].deletionTimestamp, marked['metadata'].deletionTimestamp);
    assert.equal(put.body['metadata'].deletionGracePeriodSeconds, 30);
    const res = await call(t, 'POST', `${PODS}/term-2/binding`, {
      metadata: { name: 'term-2' },
      target: { name: 'n1' },
    });
    assert.equal(res.status, 409);
  });

  it('admission runs on update too: a PUT without the default tolerations keeps them', async () => {
    const pod = (await call(t, 'POST', PODS, podBody('adm-1'))).body;
    const res = await call(t, 'PUT', `${PODS}/adm-1`, {
      metadata: pod['metadata'],
      spec: { containers: [{ name: 'main', image: 'busybox' }] },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body['spec'], pod['spec']);
  });

  it('watches pods bound to one node across namespaces (fieldSelector spec.nodeName)', async () => {
    await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.server.app.server.address();
    assert.ok(addr !== null && typeof addr === 'object');
    const list = (await call(t, 'GET', '/api/v1/pods')).body;
    const w = await openWatch(
      `http://127.0.0.1:${addr.port}/api/v1/pods?watch=true&fieldSelector=spec.nodeName=n1&resourceVersion=${list['metadata'].resourceVersion}`,
    );
    try {
      await call(t, 'POST', '/api/v1/namespaces/other/pods', podBody('w-1'));
      await call(t, 'POST', '/api/v1/namespaces/other/pods/w-1/binding', {
        metadata: { name: 'w-1' },
        target: { name: 'n1' },
      });
      const ev = await w.next();
      assert.equal(ev?.['type'], 'MODIFIED', 'the unbound create did not match; the binding did');
      assert.equal(ev?.['object'].metadata.namespace, 'other');
      assert.equal(ev?.['object'].spec.nodeName, 'n1');
      await call(t, 'DELETE', '/api/v1/namespaces/other/pods/w-1');
      const marked = await w.next();
      assert.equal(marked?.['type'], 'MODIFIED');
      assert.ok(marked?.['object'].metadata.deletionTimestamp);
      await call(t, 'DELETE', '/api/v1/namespaces/other/pods/w-1?gracePeriodSeconds=0');
      assert.equal((await w.next())?.['type'], 'DELETED');
    } finally {
      w.close();
    }
    const bad = await call(t, 'GET', '/api/v1/pods?watch=true&fieldSelector=spec.nodeName');
    assert.equal(statusBodyOf(bad).code, 400);
  });
});
