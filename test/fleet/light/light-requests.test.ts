import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestWriter, resourceVersionIn } from '../../../src/fleet/light/light-requests.js';
import { LeaseInputSchema } from '../../../src/core/lease-schema.js';
import { NodeInputSchema } from '../../../src/core/node-schema.js';

const node = { name: 'fleet-zone-b-7', zone: 'zone-b', index: 70_000 };
const T0 = '2026-12-01T18:00:00.000Z';
const T1 = '2026-12-01T18:00:10.250Z';

/** Splits one request text as a server would: request line, headers, body (checked against Content-Length). */
function parse(text: string): { line: string; headers: Map<string, string>; body: unknown } {
  const end = text.indexOf('\r\n\r\n');
  const [line = '', ...rest] = text.slice(0, end).split('\r\n');
  const headers = new Map(
    rest.map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]),
  );
  const raw = text.slice(end + 4);
  assert.equal(Number(headers.get('content-length') ?? 0), Buffer.byteLength(raw), 'Content-Length is the body size');
  return { line, headers, body: raw === '' ? undefined : JSON.parse(raw) };
}

describe('light fleet requests', () => {
  const w = new RequestWriter({ host: '127.0.0.1:9876', token: 'sekret', leaseSeconds: 40, version: 'v9' });

  it('registers the node with its zone label and host info, as a valid Node', () => {
    const r = parse(w.createNode(node));
    assert.equal(r.line, 'POST /api/v1/nodes HTTP/1.1');
    assert.equal(r.headers.get('authorization'), 'Bearer sekret');
    const n = NodeInputSchema.parse(r.body);
    assert.equal(n.metadata.name, node.name);
    assert.deepEqual(n.metadata.labels, { 'topology.kubernetes.io/zone': 'zone-b' });
    assert.deepEqual(n.status?.addresses?.[0], { type: 'InternalIP', address: '10.1.17.112' });
  });

  it('creates and renews the lease with the given resourceVersion and times, as a valid Lease', () => {
    const created = parse(w.createLease(node, T0));
    assert.equal(created.line, 'POST /api/v1/leases HTTP/1.1');
    const c = LeaseInputSchema.parse(created.body);
    assert.deepEqual(c.spec, { holderIdentity: node.name, leaseDurationSeconds: 40, acquireTime: T0, renewTime: T0 });
    assert.equal(c.metadata.namespace, 'node-lease');

    const renewal = parse(w.renew(node, w.renewParts(node, T0), '12345', T1));
    assert.equal(renewal.line, `PUT /api/v1/leases/${node.name} HTTP/1.1`);
    const r = LeaseInputSchema.parse(renewal.body);
    assert.equal(r.metadata.resourceVersion, '12345');
    assert.deepEqual(r.spec, { holderIdentity: node.name, leaseDurationSeconds: 40, acquireTime: T0, renewTime: T1 });
  });

  it('posts a Ready status at the node resourceVersion, heartbeat now, transition at readySince', () => {
    const r = parse(w.status(node, '77', T0, T1));
    assert.equal(r.line, `PUT /api/v1/nodes/${node.name}/status HTTP/1.1`);
    const n = NodeInputSchema.parse(r.body);
    assert.equal(n.metadata.resourceVersion, '77');
    const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
    assert.deepEqual(ready && [ready.status, ready.lastHeartbeatTime, ready.lastTransitionTime], ['True', T1, T0]);
    assert.deepEqual(
      n.status?.conditions?.map((c) => `${c.type}=${c.status}`),
      ['Ready=True', 'MemoryPressure=False', 'DiskPressure=False'],
    );
  });

  it('GETs carry no body and no Content-Length', () => {
    const r = parse(w.getLease(node));
    assert.equal(r.line, `GET /api/v1/leases/${node.name} HTTP/1.1`);
    assert.equal(r.headers.has('content-length'), false);
    assert.equal(parse(w.getNode(node)).line, `GET /api/v1/nodes/${node.name} HTTP/1.1`);
  });

  it('reads the resourceVersion out of an answer without parsing it', () => {
    const body = Buffer.from(JSON.stringify({ kind: 'Lease', metadata: { name: 'x', resourceVersion: '981' } }));
    assert.equal(resourceVersionIn(body), '981');
    assert.equal(resourceVersionIn(Buffer.from('{"kind":"Status"}')), undefined);
  });

  it('leaves out Authorization without a token', () => {
    const anon = new RequestWriter({ host: 'h:1', token: undefined, leaseSeconds: 40, version: 'v' });
    assert.equal(parse(anon.getNode(node)).headers.has('authorization'), false);
  });
});
