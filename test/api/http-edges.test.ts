import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MAX_PARAM_LENGTH } from '../../src/api/framework-errors.js';
import { systemClock } from '../../src/core/clock.js';
import { call, leaseBody, nodeBody, snapshot, startTestServer, statusBodyOf, type TestServer } from './harness.js';

const LONG = `${'n'.repeat(120)}.${'m'.repeat(132)}`; // 253 characters

describe('names up to 253 characters work on every route', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('a 253-character Node: create, get, put, status, delete', async () => {
    assert.equal(LONG.length, 253);
    const created = await call(t, 'POST', '/api/v1/nodes', nodeBody(LONG));
    assert.equal(created.status, 201);
    const got = await call(t, 'GET', `/api/v1/nodes/${LONG}`);
    assert.equal(got.status, 200, JSON.stringify(got.body));
    const put = await call(t, 'PUT', `/api/v1/nodes/${LONG}`, { ...got.body, spec: { unschedulable: true } });
    assert.equal(put.status, 200);
    const status = await call(t, 'PUT', `/api/v1/nodes/${LONG}/status`, {
      ...put.body,
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    assert.equal(status.status, 200);
    assert.equal((await call(t, 'GET', `/api/v1/nodes/${LONG}/status`)).status, 200);
    assert.equal((await call(t, 'DELETE', `/api/v1/nodes/${LONG}`)).status, 200);
    assert.equal((await call(t, 'GET', `/api/v1/nodes/${LONG}`)).status, 404);
  });

  it('a 253-character Lease, on the short and the namespaced paths', async () => {
    assert.equal((await call(t, 'POST', '/api/v1/leases', leaseBody(LONG))).status, 201);
    for (const base of ['/api/v1/leases', '/api/v1/namespaces/node-lease/leases']) {
      const got = await call(t, 'GET', `${base}/${LONG}`);
      assert.equal(got.status, 200, base);
      const renewed = { ...got.body, spec: { ...got.body['spec'], renewTime: '2026-11-29T12:00:01.000000Z' } };
      assert.equal((await call(t, 'PUT', `${base}/${LONG}`, renewed)).status, 200, base);
    }
    assert.equal((await call(t, 'DELETE', `/api/v1/namespaces/node-lease/leases/${LONG}`)).status, 200);
    // The same name percent-encoded in full still routes.
    const encoded = [...LONG].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    assert.equal((await call(t, 'GET', `/api/v1/leases/${encoded}`)).status, 404);
  });

  it('a segment longer than any encoded name, or a malformed %-escape, is a 400 Status saying which', async () => {
    const before = await snapshot(t);
    const long = await call(t, 'GET', `/api/v1/nodes/${'x'.repeat(MAX_PARAM_LENGTH + 1)}`);
    assert.equal(long.status, 400);
    assert.match(statusBodyOf(long).message, /path segment is longer than 759 characters/);
    const bad = await call(t, 'GET', '/api/v1/nodes/%E0%A4%A');
    assert.equal(bad.status, 400);
    assert.match(statusBodyOf(bad).message, /malformed %-escape/);
    assert.equal(await snapshot(t), before);
  });
});

describe('bodies with prototype keys are refused, saying so', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('names __proto__ and constructor.prototype, also when escaped, and writes nothing', async () => {
    const before = await snapshot(t);
    const cases: [string, RegExp][] = [
      ['{"__proto__":{"x":1},"metadata":{"name":"p1"}}', /"__proto__" key \(at __proto__\)/],
      ['{"metadata":{"name":"p1","labels":{"__proto__":{}}}}', /"__proto__" key \(at metadata\.labels\.__proto__\)/],
      [
        '{"metadata":{"name":"p1"},"spec":{"constructor":{"prototype":{}}}}',
        /"constructor" key \(at spec\.constructor\.prototype\)/,
      ],
      ['{"metadata":{"name":"p1"},"\\u005f_proto__":{}}', /"__proto__"/],
    ];
    for (const [payload, want] of cases) {
      const res = await call(t, 'POST', '/api/v1/nodes', payload, { 'content-type': 'application/json' });
      assert.equal(res.status, 400, payload);
      const status = statusBodyOf(res);
      assert.equal(status.reason, 'BadRequest');
      assert.match(status.message, want);
      assert.doesNotMatch(status.message, /not valid JSON/);
    }
    assert.equal(await snapshot(t), before);
    const broken = await call(t, 'POST', '/api/v1/nodes', '{"metadata":', { 'content-type': 'application/json' });
    assert.match(statusBodyOf(broken).message, /not valid JSON/);
    // The words alone, in values, are fine.
    const fine = nodeBody('p2', { metadata: { name: 'p2', annotations: { 'a.io/x': '__proto__ constructor' } } });
    assert.equal((await call(t, 'POST', '/api/v1/nodes', fine)).status, 201);
  });
});

describe("errors Node's HTTP parser raises are Status bodies too", () => {
  let t: TestServer;
  let port = 0;
  before(async () => {
    t = await startTestServer({ clock: systemClock, timeouts: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.server.app.server.address();
    port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  });
  after(async () => {
    await t.close();
  });

  /** Sends raw bytes and reads the answer until the server closes the connection. */
  function raw(data: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      let answer = '';
      const sock = connect(port, '127.0.0.1', () => {
        for (const d of data) sock.write(d);
      });
      sock.on('data', (b) => (answer += b.toString()));
      sock.on('error', reject);
      sock.on('close', () => {
        const [head = '', body = ''] = answer.split('\r\n\r\n');
        resolve({
          status: Number(head.split(' ')[1]),
          body: body === '' ? {} : (JSON.parse(body) as Record<string, unknown>),
        });
      });
    });
  }

  const isStatus = (r: { status: number; body: Record<string, unknown> }, code: number, reason: string): void => {
    assert.equal(r.status, code, JSON.stringify(r.body));
    assert.equal(r.body['kind'], 'Status');
    assert.equal(r.body['code'], code);
    assert.equal(r.body['reason'], reason);
    assert.equal(typeof r.body['message'], 'string');
  };

  it('a bad request line', async () => {
    const r = await raw(['GET /api/v1/nodes HTTP/9\r\nHost: x\r\n\r\n']);
    isStatus(r, 400, 'BadRequest');
    const m = await raw(['BREW /api/v1/nodes HTTP/1.1\r\nHost: x\r\n\r\n']);
    isStatus(m, 400, 'BadRequest');
    assert.match(String(m.body['message']), /request line is not valid HTTP\/1\.1/);
  });

  it('oversized headers', async () => {
    const r = await raw([`GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`]);
    isStatus(r, 431, 'RequestEntityTooLarge');
    assert.match(String(r.body['message']), /headers are larger/);
  });

  it('headers that do not arrive in time', async () => {
    const r = await raw(['GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\n']);
    isStatus(r, 408, 'Timeout');
    assert.match(String(r.body['message']), /--request-header-timeout/);
  });
});
