import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { NODE_READY_HEADER } from '../../src/api/node-ready-index.js';
import { call, leaseBody, nodeBody, startTestServer, type TestServer } from './harness.js';

const ready = (status: string) => ({
  conditions: [{ type: 'Ready', status, reason: 'AgentReady', lastHeartbeatTime: '2026-11-29T12:00:00.000000Z' }],
});

describe('lease renewal answer: shepherd-node-ready (docs/node-lifecycle.md#agent-heal)', () => {
  let t: TestServer;
  let leaseRv = '';
  before(async () => {
    t = await startTestServer({ nodeReadyHeader: true });
    const node = await call(t, 'POST', '/api/v1/nodes', nodeBody('n1'));
    await call(t, 'PUT', '/api/v1/nodes/n1/status', { ...node.body, status: ready('True') });
    leaseRv = (await call(t, 'POST', '/api/v1/leases', leaseBody('n1'))).body['metadata'].resourceVersion as string;
  });
  after(async () => {
    await t.close();
  });

  async function renew(): Promise<string | undefined> {
    const res = await call(t, 'PUT', '/api/v1/leases/n1', {
      ...leaseBody('n1'),
      metadata: { name: 'n1', resourceVersion: leaseRv },
    });
    assert.equal(res.status, 200);
    leaseRv = res.body['metadata'].resourceVersion as string;
    const v = res.headers[NODE_READY_HEADER];
    return typeof v === 'string' ? v : undefined;
  }

  /** Renews until the header says `want` (the index follows a watch): at most 50 tries. */
  async function renewUntil(want: string | undefined): Promise<string | undefined> {
    let got: string | undefined;
    for (let i = 0; i < 50; i++) {
      got = await renew();
      if (got === want) return got;
      await tick();
    }
    return got;
  }

  it('a Ready node renews without the header; marked Unknown behind its back, the renewal says so; Ready again, gone', async () => {
    assert.equal(await renewUntil(undefined), undefined);
    const node = (await call(t, 'GET', '/api/v1/nodes/n1')).body;
    await call(t, 'PUT', '/api/v1/nodes/n1/status', { ...node, status: ready('Unknown') });
    assert.equal(await renewUntil('Unknown'), 'Unknown');
    const marked = (await call(t, 'GET', '/api/v1/nodes/n1')).body;
    await call(t, 'PUT', '/api/v1/nodes/n1/status', { ...marked, status: ready('True') });
    assert.equal(await renewUntil(undefined), undefined);
  });

  it('leases of other namespaces never carry it', async () => {
    const created = await call(t, 'POST', '/api/v1/namespaces/shepherd-system/leases', leaseBody('n1'));
    const node = (await call(t, 'GET', '/api/v1/nodes/n1')).body;
    await call(t, 'PUT', '/api/v1/nodes/n1/status', { ...node, status: ready('False') });
    assert.equal(await renewUntil('False'), 'False');
    const res = await call(t, 'PUT', '/api/v1/namespaces/shepherd-system/leases/n1', {
      ...leaseBody('n1'),
      metadata: { name: 'n1', namespace: 'shepherd-system', resourceVersion: created.body['metadata'].resourceVersion },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers[NODE_READY_HEADER], undefined);
  });
});
