import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { buildServer, type ApiServer } from '../../src/api/build-server.js';
import type { EventLimits } from '../../src/api/event-quota.js';
import { DEFAULT_RATE_LIMITS } from '../../src/api/identity-rate-limiter.js';
import { TokenAuthenticator } from '../../src/api/token-authenticator.js';
import { parseTokenFile } from '../../src/api/token-file.js';
import { silentLogger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import { startEventGc } from '../../src/registry/event-gc.js';
import { foldedEventName } from '../../src/registry/event-registry.js';
import { eventually } from '../support/eventually.js';
import { FakeClock } from '../support/fake-clock.js';
import { openTestStore, snapshot, statusBodyOf, type Json, type TestStore } from './harness.js';

const TOKEN_FILE = [
  'tok-admin,admin,1,system:masters',
  'tok-view,viewer,2,system:viewers',
  'tok-a,system:node:node-a,3,system:nodes',
  'tok-c,system:node:node-c,4,system:nodes',
].join('\n');

interface Rig {
  t: TestStore;
  clock: FakeClock;
  server: ApiServer;
  call(token: string, method: string, url: string, body?: unknown): Promise<Json>;
  close(): Promise<void>;
}

async function rig(eventLimits: Partial<EventLimits> = {}): Promise<Rig> {
  const clock = new FakeClock();
  const t = await openTestStore(clock);
  const server = await buildServer({
    store: t.store,
    clock,
    random: seededRandom(3),
    log: false,
    version: 'test',
    auth: {
      authenticator: new TokenAuthenticator(parseTokenFile(TOKEN_FILE)),
      rateLimits: DEFAULT_RATE_LIMITS,
      maxWatchesPerUser: 50,
      eventLimits,
    },
  });
  return {
    t,
    clock,
    server,
    call: async (token, method, url, body) => {
      const res = await server.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      const json = String(res.headers['content-type'] ?? '').includes('json');
      return { status: res.statusCode, body: json ? res.json() : { text: res.body }, headers: res.headers };
    },
    close: async () => {
      await server.app.close();
      await t.close();
    },
  };
}

/** What the node lifecycle controller writes when it registers node-c. */
const registeredC = {
  type: 'Normal',
  reason: 'RegisteredNode',
  message: 'Node node-c event: Registered Node node-c in Controller',
  involvedObject: { kind: 'Node', name: 'node-c' },
  source: { component: 'node-controller', host: 'ctl_1' },
} as const;

function nodeEvent(node: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'Warning',
    reason: 'DiskSlow',
    message: `disk on ${node} is slow`,
    involvedObject: { kind: 'Node', name: node },
    source: { component: 'shepherd-agent', host: node },
    ...extra,
  };
}

describe('Events cannot be forged or hijacked', () => {
  let r: Rig;
  before(async () => {
    r = await rig();
  });
  after(async () => {
    await r.close();
  });

  it("a node cannot take the name the server will fold another node's Event into", async () => {
    const stolen = foldedEventName(registeredC);
    const before = await snapshot(r.t);
    const forged = await r.call('tok-a', 'POST', '/api/v1/events', {
      metadata: { name: stolen },
      ...nodeEvent('node-a', { reason: 'NodeCompromised', message: 'node-c is compromised' }),
    });
    assert.equal(forged.status, 422, JSON.stringify(forged.body));
    assert.deepEqual(
      (statusBodyOf(forged).details['causes'] as { field: string }[]).map((c) => c.field),
      ['metadata.name'],
    );
    assert.equal(await snapshot(r.t), before);
    // The controller's Event lands under its name and says what the controller said.
    const real = await r.call('tok-admin', 'POST', '/api/v1/events', registeredC);
    assert.equal(real.status, 201);
    assert.equal(real.body['metadata'].name, stolen);
    assert.equal(real.body['reason'], 'RegisteredNode');
    assert.equal(real.body['count'], 1);
  });

  it('a node may not credit an Event to the control plane, nor name another host or object', async () => {
    const before = await snapshot(r.t);
    for (const component of [
      'node-controller',
      'scheduler',
      'deployment-controller',
      'taint-eviction-controller',
      'pod-gc',
      'shepherd',
    ]) {
      const res = await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a', { source: { component } }));
      assert.equal(res.status, 403, component);
      assert.match(statusBodyOf(res).message, /control plane/);
    }
    const otherHost = await r.call(
      'tok-a',
      'POST',
      '/api/v1/events',
      nodeEvent('node-a', { source: { component: 'x', host: 'node-c' } }),
    );
    assert.equal(otherHost.status, 403);
    assert.match(statusBodyOf(otherHost).message, /source\.host "node-c"/);
    const otherNode = await r.call(
      'tok-a',
      'POST',
      '/api/v1/events',
      nodeEvent('node-c', { source: { component: 'x' } }),
    );
    assert.equal(otherNode.status, 403);
    const aboutPod = await r.call(
      'tok-a',
      'POST',
      '/api/v1/events',
      nodeEvent('node-a', { involvedObject: { kind: 'Pod', name: 'p' } }),
    );
    assert.equal(aboutPod.status, 403);
    assert.equal(await snapshot(r.t), before);
    // Its own Node, with or without its own host: fine.
    assert.equal((await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a'))).status, 201);
    const noHost = nodeEvent('node-a', { source: { component: 'shepherd-agent' }, message: 'no host' });
    assert.equal((await r.call('tok-a', 'POST', '/api/v1/events', noHost)).status, 201);
    // system:masters may write as the control plane.
    const admin = await r.call('tok-admin', 'POST', '/api/v1/events', { ...registeredC, message: 'by an admin' });
    assert.equal(admin.status, 201);
  });

  it('only system:masters update or delete Events', async () => {
    const ev = (await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a', { message: 'mine' }))).body;
    const url = `/api/v1/events/${ev['metadata'].name}`;
    const before = await snapshot(r.t);
    for (const token of ['tok-a', 'tok-c', 'tok-view']) {
      assert.equal((await r.call(token, 'PUT', url, { ...ev, message: 'changed' })).status, 403, token);
      assert.equal((await r.call(token, 'DELETE', url)).status, 403, token);
    }
    assert.equal(await snapshot(r.t), before);
    assert.equal((await r.call('tok-admin', 'PUT', url, { ...ev, message: 'corrected' })).status, 200);
  });

  it('refuses timestamps more than 10 minutes ahead of the server clock, naming the field', async () => {
    const ahead = new Date(r.clock.now() + 11 * 60_000).toISOString();
    const res = await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a', { lastTimestamp: ahead }));
    assert.equal(res.status, 422);
    assert.deepEqual(
      (statusBodyOf(res).details['causes'] as { field: string }[]).map((c) => c.field),
      ['lastTimestamp'],
    );
    const first = await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a', { firstTimestamp: ahead }));
    assert.equal(first.status, 422);
    const near = new Date(r.clock.now() + 9 * 60_000).toISOString();
    assert.equal(
      (await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a', { message: 'near', lastTimestamp: near })))
        .status,
      201,
    );
  });
});

describe('Event expiry goes by the server clock, and Event writes are bounded', () => {
  let r: Rig;
  beforeEach(async () => {
    r = await rig({ perMinute: 5, maxBytesPerNode: 4096 });
  });
  afterEach(async () => {
    await r.close();
  });

  it('an Event with a lastTimestamp ahead of the server still expires one TTL after its last write', async () => {
    const stop = new AbortController();
    const gc = startEventGc({
      registry: r.server.registry,
      clock: r.clock,
      ttlMs: 60 * 60_000,
      intervalMs: 60_000,
      log: silentLogger,
      signal: stop.signal,
    });
    const ahead = new Date(r.clock.now() + 9 * 60_000).toISOString();
    const ev = await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a', { lastTimestamp: ahead }));
    assert.equal(ev.status, 201);
    const url = `/api/v1/events/${ev.body['metadata'].name}`;
    await r.clock.advance(60 * 60_000);
    assert.equal((await r.call('tok-a', 'GET', url)).status, 200);
    // Written before the sample of minute 0: expired from minute 60 on, well before lastTimestamp + TTL (minute 69).
    await r.clock.advance(2 * 60_000);
    assert.equal((await r.call('tok-a', 'GET', url)).status, 404);
    stop.abort();
    await gc;
  });

  it('limits the Events one identity creates per minute (429 with Retry-After); masters are not limited', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a', { message: `m${i}` }));
      assert.equal(res.status, 201);
    }
    const before = await snapshot(r.t);
    const over = await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a', { message: 'over' }));
    assert.equal(over.status, 429);
    assert.equal(statusBodyOf(over).reason, 'TooManyRequests');
    assert.equal(over.headers['retry-after'], '12');
    assert.equal(await snapshot(r.t), before);
    // Another node has its own bucket; a master has none.
    assert.equal((await r.call('tok-c', 'POST', '/api/v1/events', nodeEvent('node-c'))).status, 201);
    for (let i = 0; i < 10; i++)
      assert.equal(
        (await r.call('tok-admin', 'POST', '/api/v1/events', { ...registeredC, message: `a${i}` })).status,
        201,
      );
    await r.clock.advance(12_000);
    assert.equal(
      (await r.call('tok-a', 'POST', '/api/v1/events', nodeEvent('node-a', { message: 'later' }))).status,
      201,
    );
  });

  it("limits the bytes one node's Events hold; the node may write again once they are gone", async () => {
    const big = (i: number): Record<string, unknown> => nodeEvent('node-a', { message: `${i} ${'x'.repeat(1000)}` });
    let status = 201;
    let created = 0;
    for (let i = 0; status === 201 && i < 20; i++) {
      await r.clock.advance(12_000); // stay under the per-minute limit
      // The tally follows a watch: let it see the last write before the next one is admitted.
      const held = created;
      await eventually(async () => (await r.t.store.list('events')).items.length === held, { what: 'writes' });
      status = (await r.call('tok-a', 'POST', '/api/v1/events', big(i))).status;
      if (status === 201) created++;
    }
    assert.equal(status, 429);
    assert.ok(created >= 3 && created <= 5, `created ${created} events of ~1.2 KB under a 4 KiB limit`);
    // Other nodes are not affected.
    assert.equal((await r.call('tok-c', 'POST', '/api/v1/events', nodeEvent('node-c'))).status, 201);
    // Once its Events are gone (expired, or deleted by an admin), the node may write again.
    for (const e of (await r.t.store.list('events')).items)
      await r.call('tok-admin', 'DELETE', `/api/v1/events/${e.metadata.name}`);
    await r.clock.advance(12_000);
    await eventually(async () => (await r.call('tok-a', 'POST', '/api/v1/events', big(99))).status === 201, {
      what: 'node-a may write again',
    });
  });
});
