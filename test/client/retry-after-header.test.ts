import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Backoff } from '../../src/agent/backoff.js';
import { HttpApiClient } from '../../src/client/http-client.js';
import { ServiceUnavailableError, TooManyRequestsError } from '../../src/core/errors.js';
import { seededRandom } from '../../src/core/random.js';
import { FakeHttpServer } from '../support/fake-http-server.js';
import { StepClock } from './step-clock.js';

// An agent (which retries itself, maxAttempts 1) must honour Retry-After even when only the header carries it,
// e.g. a 429 from a proxy in front of the server.
describe('Retry-After header without retryAfterSeconds in the Status', () => {
  let server: FakeHttpServer;
  beforeEach(async () => (server = await FakeHttpServer.start()));
  afterEach(async () => server.close());

  const client = (): HttpApiClient =>
    new HttpApiClient({
      addresses: [server.address],
      clock: new StepClock(),
      random: seededRandom(1),
      retry: { maxAttempts: 1 },
    });

  it('puts the header into the error, so the agent waits at least that long', async () => {
    server.replyStatus('PUT', '/api/v1/leases/node-1', 429, 'TooManyRequests', 'slow down', {
      headers: { 'retry-after': '4' },
    });
    server.replyStatus('GET', '/api/v1/nodes/node-1', 503, 'ServiceUnavailable', 'busy', {
      headers: { 'retry-after': '2' },
    });
    const c = client();
    try {
      const lease = {
        metadata: { name: 'node-1', resourceVersion: '1' },
        spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000Z' },
      };
      const err = await c
        .leases()
        .update(lease as never)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof TooManyRequestsError, String(err));
      assert.equal(err.details?.retryAfterSeconds, 4);
      assert.equal(new Backoff().next(err), 4000, "the agent's backoff honours it");
      const err2 = await c.nodes.get('node-1').then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err2 instanceof ServiceUnavailableError);
      assert.equal(err2.details?.retryAfterSeconds, 2);
    } finally {
      await c.close();
    }
  });

  it('takes the longer wait when the header and the Status disagree', async () => {
    server.replyStatus('GET', '/api/v1/nodes/node-1', 429, 'TooManyRequests', 'slow down', {
      details: { retryAfterSeconds: 7 },
      headers: { 'retry-after': '1' },
    });
    const c = client();
    try {
      const err = await c.nodes.get('node-1').then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof TooManyRequestsError);
      assert.equal(err.details?.retryAfterSeconds, 7);
    } finally {
      await c.close();
    }
  });
});
