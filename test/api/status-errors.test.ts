import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildServer } from '../../src/api/build-server.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { ServiceUnavailableError, TooManyRequestsError } from '../../src/core/errors.js';
import { recordingLogger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import {
  call,
  nodeBody,
  openTestStore,
  snapshot,
  startTestServer,
  statusBodyOf,
  type TestServer,
  type TestStore,
} from './harness.js';

describe('Status bodies for client errors', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await call(t, 'POST', '/api/v1/nodes', nodeBody('existing'));
  });
  after(async () => {
    await t.close();
  });

  it('400 BadRequest for malformed JSON, and nothing is written', async () => {
    const before = await snapshot(t);
    const res = await call(t, 'POST', '/api/v1/nodes', '{"metadata": {', { 'content-type': 'application/json' });
    assert.equal(res.status, 400);
    assert.equal(statusBodyOf(res).reason, 'BadRequest');
    assert.equal(await snapshot(t), before);
  });

  it('400 BadRequest for a JSON body that is not an object', async () => {
    const res = await call(t, 'POST', '/api/v1/nodes', '[1,2]', { 'content-type': 'application/json' });
    assert.equal(res.status, 400);
    assert.equal(statusBodyOf(res).reason, 'BadRequest');
  });

  it('404 NotFound for an unknown route', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/widgets'],
      ['GET', '/apis/apps/v1/widgets'],
      ['POST', '/nope'],
      ['PATCH', '/api/v1/nodes/existing'],
    ] as const) {
      const res = await call(t, method, url, method === 'GET' ? undefined : {});
      assert.equal(res.status, 404, `${method} ${url}`);
      assert.equal(statusBodyOf(res).reason, 'NotFound');
    }
  });

  it('413 RequestEntityTooLarge over 1 MiB, and nothing is written', async () => {
    const before = await snapshot(t);
    const big = { metadata: { name: 'big', annotations: { a: 'x'.repeat(1024 * 1024) } } };
    const res = await call(t, 'POST', '/api/v1/nodes', big);
    assert.equal(res.status, 413);
    assert.equal(statusBodyOf(res).reason, 'RequestEntityTooLarge');
    assert.equal(await snapshot(t), before);
  });

  it('415 UnsupportedMediaType for a non-JSON write, and nothing is written', async () => {
    const before = await snapshot(t);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/yaml']) {
      const res = await call(t, 'POST', '/api/v1/nodes', 'metadata: {name: x}', { 'content-type': type });
      assert.equal(res.status, 415, type);
      assert.equal(statusBodyOf(res).reason, 'UnsupportedMediaType');
    }
    assert.equal(await snapshot(t), before);
  });

  it('422 Invalid with a cause per problem, unknown fields named; nothing is written', async () => {
    const before = await snapshot(t);
    const res = await call(t, 'POST', '/api/v1/nodes', {
      metadata: { name: 'Bad_Name', labels: { foo: 'not ok!' } },
      spec: { bogus: true, taints: [{ key: 'k', effect: 'Sometimes' }] },
      extra: 1,
    });
    assert.equal(res.status, 422);
    const s = statusBodyOf(res);
    assert.equal(s.reason, 'Invalid');
    const fields = (s.details.causes as { field: string; message: string }[]).map((c) => c.field).sort();
    assert.deepEqual(fields, ['extra', 'metadata.labels.foo', 'metadata.name', 'spec.bogus', 'spec.taints[0].effect']);
    for (const c of s.details.causes) assert.ok(c.message.length > 0);
    assert.equal(await snapshot(t), before);
  });

  it('422 Invalid when apiVersion or kind does not match the resource', async () => {
    const res = await call(t, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Lease', metadata: { name: 'k1' } });
    assert.equal(res.status, 422);
    assert.deepEqual(
      statusBodyOf(res).details.causes.map((c: { field: string }) => c.field),
      ['kind'],
    );
  });
});

/** A store whose `get` fails with the given error; every other call goes to the real store. */
function failingGet(store: Store, err: Error): Store {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'get') return () => Promise.reject(err);
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('Status bodies for server errors', () => {
  let ts: TestStore;
  before(async () => {
    ts = await openTestStore();
  });
  after(async () => {
    await ts.close();
  });

  async function serverWith(err: Error, log = recordingLogger()) {
    const clock = new FakeClock();
    const server = await buildServer({
      store: failingGet(ts.store, err),
      clock,
      random: seededRandom(1),
      log,
      version: 'v',
      metrics: new ApiMetrics({ defaultMetrics: false }),
    });
    return { server, log };
  }

  it('500 InternalError for an unexpected error, logged with the error', async () => {
    const { server, log } = await serverWith(new Error('disk on fire'));
    const res = await server.app.inject({ method: 'GET', url: '/api/v1/nodes/x' });
    assert.equal(res.statusCode, 500);
    const body = res.json();
    assert.equal(body.kind, 'Status');
    assert.equal(body.reason, 'InternalError');
    assert.equal(body.code, 500);
    assert.doesNotMatch(body.message, /disk on fire/);
    const line = log.lines.find((l) => l.level === 'error');
    assert.ok(line, 'the error is logged');
    assert.match(String((line.obj['err'] as Error).message), /disk on fire/);
    await server.app.close();
  });

  it('503 ServiceUnavailable and 429 TooManyRequests carry Retry-After', async () => {
    for (const [err, code] of [
      [new ServiceUnavailableError('storage is unavailable: retry later', { retryAfterSeconds: 3 }), 503],
      [new TooManyRequestsError('too many requests: slow down', 7), 429],
    ] as const) {
      const { server } = await serverWith(err);
      const res = await server.app.inject({ method: 'GET', url: '/api/v1/nodes/x' });
      assert.equal(res.statusCode, code);
      assert.equal(res.headers['retry-after'], String(err.details?.retryAfterSeconds));
      assert.equal(res.json().reason, err.reason);
      assert.equal(res.json().details.retryAfterSeconds, err.details?.retryAfterSeconds);
      await server.app.close();
    }
  });
});
