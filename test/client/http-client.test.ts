import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  ConflictError,
  InvalidError,
  NotFoundError,
  ServiceUnavailableError,
  ShepherdError,
  TooManyRequestsError,
  UnauthorizedError,
} from '../../src/core/errors.js';
import { recordingLogger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import { HttpApiClient, type HttpClientOptions } from '../../src/client/http-client.js';
import { eventually } from '../support/eventually.js';
import { FakeHttpServer } from '../support/fake-http-server.js';
import { FakeClock } from '../support/fake-clock.js';
import { StepClock } from './step-clock.js';
import { testSender } from './test-sender.js';

const node = (name: string, rv = '5') => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, uid: 'u-1', resourceVersion: rv, creationTimestamp: '2026-11-29T12:00:00.000Z' },
  spec: {},
  status: { conditions: [] },
});

/** An address nothing listens on: a server we started and closed. */
async function deadAddress(): Promise<string> {
  const s = await FakeHttpServer.start();
  const address = s.address;
  await s.close();
  return address;
}

describe('HttpApiClient', () => {
  let server: FakeHttpServer;
  let clock: StepClock;
  const clients: HttpApiClient[] = [];
  const client = (extra: Partial<HttpClientOptions> = {}): HttpApiClient => {
    const c = new HttpApiClient({
      ...testSender(),
      addresses: [server.address],
      clock,
      random: seededRandom(7),
      ...extra,
    });
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    server = await FakeHttpServer.start();
    clock = new StepClock();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server.close();
  });

  it('sends every endpoint to its path with the token and a user agent', async () => {
    server
      .reply('GET', '/api/v1/nodes/node-1', 200, node('node-1'))
      .reply('GET', '/api/v1/nodes', 200, {
        apiVersion: 'v1',
        kind: 'NodeList',
        metadata: { resourceVersion: '9' },
        items: [node('a')],
      })
      .reply('POST', '/api/v1/nodes', 201, node('node-2', '10'))
      .reply('PUT', '/api/v1/nodes/node-1', 200, node('node-1', '11'))
      .reply('PUT', '/api/v1/nodes/node-1/status', 200, node('node-1', '12'))
      .reply('DELETE', '/api/v1/nodes/node-1', 200, node('node-1', '13'))
      .reply('GET', '/api/v1/leases/node-1', 200, { metadata: { name: 'node-1' } })
      .reply('GET', '/api/v1/namespaces/shepherd-system/leases/leader', 200, { metadata: { name: 'leader' } })
      .reply('POST', '/api/v1/events', 201, { metadata: { name: 'e' } })
      .reply('GET', '/api/v1/zones/default', 200, { metadata: { name: 'default' } })
      .reply('GET', '/version', 200, { version: '0.1.0', storage: 'sqlite' });
    const c = client({ token: 'tok-123' });
    assert.equal((await c.nodes.get('node-1')).metadata.name, 'node-1');
    const list = await c.nodes.list({ labelSelector: 'zone=a,x!=y' });
    assert.equal(list.metadata.resourceVersion, '9');
    assert.equal(
      (await c.nodes.create({ metadata: { name: 'node-2' }, spec: {} } as never)).metadata.resourceVersion,
      '10',
    );
    assert.equal((await c.nodes.update(node('node-1') as never)).metadata.resourceVersion, '11');
    assert.equal((await c.nodes.updateStatus(node('node-1') as never)).metadata.resourceVersion, '12');
    assert.equal((await c.nodes.delete('node-1')).metadata.resourceVersion, '13');
    await c.leases().get('node-1');
    await c.leases('shepherd-system').get('leader');
    await c.events.create({ metadata: {} } as never);
    await c.zones.get('default');
    assert.deepEqual(await c.version(), { version: '0.1.0', storage: 'sqlite' });

    assert.equal(server.requests.length, 11);
    for (const r of server.requests) {
      assert.equal(r.headers.authorization, 'Bearer tok-123');
      assert.match(String(r.headers['user-agent']), /^shepherd/);
    }
    assert.equal(server.requests[1]!.query.get('labelSelector'), 'zone=a,x!=y');
    assert.deepEqual(JSON.parse(server.requests[2]!.body), { metadata: { name: 'node-2' }, spec: {} });
    assert.equal(server.requests[2]!.headers['content-type'], 'application/json');
    assert.equal(JSON.parse(server.requests[3]!.body).metadata.resourceVersion, '5');
  });

  it('revives Status bodies as the same error classes', async () => {
    server
      .replyStatus('GET', '/api/v1/nodes/x', 404, 'NotFound', 'nodes "x" not found', {
        details: { kind: 'nodes', name: 'x' },
      })
      .replyStatus('PUT', '/api/v1/nodes/x', 409, 'Conflict', 'the object has been modified', {
        details: { kind: 'nodes', name: 'x' },
      })
      .replyStatus('POST', '/api/v1/nodes', 422, 'Invalid', 'Node is invalid', {
        details: { causes: [{ field: 'spec.bogus', message: 'unknown field' }] },
      })
      .replyStatus('GET', '/api/v1/zones', 401, 'Unauthorized', 'send a token');
    const c = client();
    await assert.rejects(
      c.nodes.get('x'),
      (e) => e instanceof NotFoundError && e.details?.name === 'x' && e.message === 'nodes "x" not found',
    );
    await assert.rejects(c.nodes.update(node('x') as never), ConflictError);
    await assert.rejects(
      c.nodes.create(node('y') as never),
      (e) => e instanceof InvalidError && e.details?.causes?.[0]?.field === 'spec.bogus',
    );
    await assert.rejects(c.zones.list(), UnauthorizedError);
  });

  it('gives a non-Status error body the reason of its HTTP code', async () => {
    server
      .reply('GET', '/api/v1/nodes/a', 502, '<html>bad gateway</html>')
      .reply('GET', '/api/v1/nodes/b', 403, { oops: 1 });
    const c = client();
    await assert.rejects(
      c.nodes.get('a'),
      (e) => e instanceof ShepherdError && e.reason === 'InternalError' && /HTTP 502/.test(e.message),
    );
    await assert.rejects(c.nodes.get('b'), (e) => e instanceof ShepherdError && e.reason === 'Forbidden');
  });

  it('turns a refused connection into ServiceUnavailableError naming the address, after retrying with backoff', async () => {
    const dead = await deadAddress();
    const c = client({ addresses: [dead], retry: { maxAttempts: 3, initialBackoffMs: 100, maxBackoffMs: 1000 } });
    await assert.rejects(c.nodes.get('a'), (e) => {
      assert.ok(e instanceof ServiceUnavailableError);
      assert.match(e.message, new RegExp(`cannot reach the shepherd API at http://${dead}: connection refused`));
      assert.equal((e.cause as { code?: string }).code, 'ECONNREFUSED');
      return true;
    });
    assert.equal(clock.sleeps.length, 2);
    assert.ok(
      clock.sleeps[0]! < 100 && clock.sleeps[1]! < 200,
      `full jitter within the doubling ceiling: ${clock.sleeps}`,
    );
  });

  it('retries 503 and 429 on GET/PUT/DELETE, honouring Retry-After', async () => {
    server
      .replyStatus(
        'GET',
        '/api/v1/nodes/a',
        503,
        'ServiceUnavailable',
        'store busy',
        { headers: { 'retry-after': '3' } },
        1,
      )
      .reply('GET', '/api/v1/nodes/a', 200, node('a'))
      .replyStatus('PUT', '/api/v1/nodes/a', 429, 'TooManyRequests', 'slow down', {}, 1)
      .reply('PUT', '/api/v1/nodes/a', 200, node('a', '6'))
      .replyStatus('DELETE', '/api/v1/nodes/a', 503, 'ServiceUnavailable', 'busy', {}, 2)
      .reply('DELETE', '/api/v1/nodes/a', 200, node('a', '7'));
    const c = client({ retry: { initialBackoffMs: 100, maxBackoffMs: 1000 } });
    assert.equal((await c.nodes.get('a')).metadata.name, 'a');
    assert.deepEqual(clock.sleeps, [3000], 'Retry-After wins over a shorter backoff and over the cap');
    assert.equal((await c.nodes.update(node('a') as never)).metadata.resourceVersion, '6');
    assert.equal((await c.nodes.delete('a')).metadata.resourceVersion, '7');
    assert.equal(server.requestsTo('DELETE', '/api/v1/nodes/a').length, 3);
    assert.equal(clock.sleeps.length, 4);
  });

  it('gives up after maxAttempts and throws the last error', async () => {
    server.replyStatus('GET', '/api/v1/nodes/a', 503, 'ServiceUnavailable', 'still busy');
    const c = client({ retry: { maxAttempts: 4, initialBackoffMs: 10, maxBackoffMs: 20 } });
    await assert.rejects(c.nodes.get('a'), (e) => e instanceof ServiceUnavailableError && e.message === 'still busy');
    assert.equal(server.requestsTo('GET', '/api/v1/nodes/a').length, 4);
  });

  it('never retries a POST that may have reached the server', async () => {
    server
      .replyStatus('POST', '/api/v1/events', 429, 'TooManyRequests', 'slow down', {}, 1)
      .replyStatus('POST', '/api/v1/nodes', 503, 'ServiceUnavailable', 'busy', {}, 1)
      .drop('POST', '/api/v1/leases', 1);
    const c = client();
    await assert.rejects(c.events.create({ metadata: {} } as never), TooManyRequestsError);
    await assert.rejects(c.nodes.create(node('a') as never), ServiceUnavailableError);
    await assert.rejects(c.leases().create({ metadata: { name: 'a' } } as never), ServiceUnavailableError);
    assert.equal(server.requests.length, 3);
    assert.deepEqual(clock.sleeps, []);
  });

  it('retries a GET whose connection was dropped', async () => {
    server.drop('GET', '/api/v1/nodes/a', 1).reply('GET', '/api/v1/nodes/a', 200, node('a'));
    assert.equal((await client().nodes.get('a')).metadata.name, 'a');
    assert.equal(server.requestsTo('GET', '/api/v1/nodes/a').length, 2);
  });

  it('fails over to the next address at once, for POST too, and sticks to the one that answers', async () => {
    const dead = await deadAddress();
    server.reply('POST', '/api/v1/nodes', 201, node('a')).reply('GET', '/api/v1/nodes/a', 200, node('a'));
    const c = client({ addresses: [dead, server.url] });
    assert.equal((await c.nodes.create(node('a') as never)).metadata.name, 'a');
    assert.equal((await c.nodes.get('a')).metadata.name, 'a');
    assert.deepEqual(clock.sleeps, [], 'an untried address needs no backoff');
  });

  it('moves to another address when one answers 503', async () => {
    const draining = await FakeHttpServer.start();
    try {
      draining.replyStatus(
        'GET',
        '/api/v1/nodes/a',
        503,
        'ServiceUnavailable',
        'the server is shutting down: retry against another server',
      );
      server.reply('GET', '/api/v1/nodes/a', 200, node('a'));
      assert.equal((await client({ addresses: [draining.address, server.address] }).nodes.get('a')).metadata.name, 'a');
      assert.deepEqual(clock.sleeps, []);
      assert.equal(draining.requests.length, 1);
    } finally {
      await draining.close();
    }
  });

  it('stops waiting when the signal aborts during a backoff', async () => {
    server.replyStatus('GET', '/api/v1/nodes/a', 503, 'ServiceUnavailable', 'busy');
    const fake = new FakeClock();
    const c = client({ clock: fake });
    const ac = new AbortController();
    const p = c.nodes.get('a', { signal: ac.signal });
    await eventually(() => fake.pendingSleepers > 0, { what: 'the client asleep in its retry backoff' });
    ac.abort();
    await assert.rejects(p, { name: 'AbortError' });
    assert.equal(server.requests.length, 1);
  });

  it('never logs the token', async () => {
    const log = recordingLogger();
    server
      .replyStatus('GET', '/api/v1/nodes/a', 503, 'ServiceUnavailable', 'busy', {}, 2)
      .reply('GET', '/api/v1/nodes/a', 200, node('a'));
    await client({ token: 'very-secret-token', log }).nodes.get('a');
    assert.ok(log.lines.length >= 2, 'retries are logged');
    assert.ok(!JSON.stringify(log.lines).includes('very-secret-token'));
  });
});
