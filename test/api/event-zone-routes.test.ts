import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FakeClock } from '../support/fake-clock.js';
import { call, eventBody, snapshot, startTestServer, statusBodyOf, zoneBody, type TestServer } from './harness.js';

describe('events API', () => {
  let t: TestServer;
  let clock: FakeClock;
  before(async () => {
    t = await startTestServer();
    clock = t.clock as FakeClock;
  });
  after(async () => {
    await t.close();
  });

  it('names an unnamed Event <involvedObject.name>.<suffix> and sets count and timestamps', async () => {
    const res = await call(t, 'POST', '/api/v1/events', eventBody());
    assert.equal(res.status, 201);
    assert.match(res.body['metadata'].name, /^node-1\.[0-9a-f]{16}$/);
    assert.equal(res.body['count'], 1);
    assert.equal(res.body['firstTimestamp'], '2026-11-29T12:00:00.000Z');
    assert.equal(res.body['lastTimestamp'], '2026-11-29T12:00:00.000Z');
    assert.equal((await call(t, 'GET', `/api/v1/events/${res.body['metadata'].name}`)).body['count'], 1);
  });

  it('folds a repeat within 10 minutes into the same Event (count grows, lastTimestamp moves)', async () => {
    const body = eventBody({ involvedObject: { kind: 'Node', name: 'fold-1' }, message: 'fold me' });
    const first = (await call(t, 'POST', '/api/v1/events', body)).body;
    await clock.advance(60_000);
    const second = await call(t, 'POST', '/api/v1/events', body);
    assert.equal(second.status, 201);
    assert.equal(second.body['metadata'].name, first['metadata'].name);
    assert.equal(second.body['metadata'].uid, first['metadata'].uid);
    assert.equal(second.body['count'], 2);
    assert.equal(second.body['firstTimestamp'], first['firstTimestamp']);
    assert.equal(second.body['lastTimestamp'], '2026-11-29T12:01:00.000Z');
    const list = await call(t, 'GET', '/api/v1/events?fieldSelector=involvedObject.name%3Dfold-1');
    assert.equal(list.body['items'].length, 1);
    // A different message is a different Event.
    const other = await call(t, 'POST', '/api/v1/events', { ...body, message: 'something else' });
    assert.notEqual(other.body['metadata'].name, first['metadata'].name);
    assert.equal(other.body['count'], 1);
  });

  it('an Event with an explicit name is created as is, and a second create is 409', async () => {
    const body = eventBody({ metadata: { name: 'named-1' } });
    assert.equal((await call(t, 'POST', '/api/v1/events', body)).body['metadata'].name, 'named-1');
    const before = await snapshot(t);
    const again = await call(t, 'POST', '/api/v1/events', body);
    assert.equal(again.status, 409);
    assert.equal(statusBodyOf(again).reason, 'AlreadyExists');
    assert.equal(await snapshot(t), before);
  });

  it('lists with a fieldSelector over involvedObject, reason and type', async () => {
    await call(t, 'POST', '/api/v1/events', eventBody({ involvedObject: { kind: 'Node', name: 'fs-1' } }));
    await call(
      t,
      'POST',
      '/api/v1/events',
      eventBody({ involvedObject: { kind: 'Node', name: 'fs-1' }, type: 'Normal', reason: 'NodeReady' }),
    );
    await call(t, 'POST', '/api/v1/events', eventBody({ involvedObject: { kind: 'Node', name: 'fs-2' } }));
    const res = await call(
      t,
      'GET',
      '/api/v1/events?fieldSelector=involvedObject.name%3Dfs-1,reason%3DNodeNotReady,type%3DWarning',
    );
    assert.equal(res.body['kind'], 'EventList');
    assert.deepEqual(
      res.body['items'].map((e: { involvedObject: { name: string }; reason: string }) => [
        e.involvedObject.name,
        e.reason,
      ]),
      [['fs-1', 'NodeNotReady']],
    );
    const notWarning = await call(t, 'GET', '/api/v1/events?fieldSelector=involvedObject.name%3Dfs-1,type!%3DWarning');
    assert.deepEqual(
      notWarning.body['items'].map((e: { reason: string }) => e.reason),
      ['NodeReady'],
    );
  });

  it('rejects an invalid Event with 422 and writes nothing', async () => {
    const before = await snapshot(t);
    const res = await call(t, 'POST', '/api/v1/events', eventBody({ type: 'Fatal', involvedObject: { kind: 'Node' } }));
    assert.equal(res.status, 422);
    assert.deepEqual(
      statusBodyOf(res)
        .details.causes.map((c: { field: string }) => c.field)
        .sort(),
      ['involvedObject.name', 'type'],
    );
    assert.equal(await snapshot(t), before);
  });
});

describe('zones API', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('creates, reads, updates, lists and deletes zones; the zone "" is named default', async () => {
    const created = await call(t, 'POST', '/api/v1/zones', zoneBody(''));
    assert.equal(created.status, 201);
    assert.equal(created.body['metadata'].name, 'default');
    await call(t, 'POST', '/api/v1/zones', zoneBody('eu-1'));
    const got = await call(t, 'GET', '/api/v1/zones/default');
    assert.equal(got.body['status'].state, 'Normal');
    const updated = await call(t, 'PUT', '/api/v1/zones/default', {
      metadata: { name: 'default', resourceVersion: got.body['metadata'].resourceVersion },
      status: { state: 'FullDisruption', nodes: 3, notReady: 3, evictionRate: 0 },
    });
    assert.equal(updated.status, 200);
    assert.equal(updated.body['status'].state, 'FullDisruption');
    const list = await call(t, 'GET', '/api/v1/zones');
    assert.equal(list.body['kind'], 'ZoneList');
    assert.deepEqual(
      list.body['items'].map((z: { metadata: { name: string } }) => z.metadata.name),
      ['default', 'eu-1'],
    );
    assert.equal((await call(t, 'DELETE', '/api/v1/zones/eu-1')).status, 200);
    assert.equal((await call(t, 'GET', '/api/v1/zones/eu-1')).status, 404);
  });

  it('rejects a bad zone state with 422 naming status.state, and writes nothing', async () => {
    const before = await snapshot(t);
    const res = await call(t, 'POST', '/api/v1/zones', {
      metadata: { name: 'z9' },
      status: { state: 'Burning', nodes: 1, notReady: 0, evictionRate: 0 },
    });
    assert.equal(res.status, 422);
    assert.equal(statusBodyOf(res).details.causes[0].field, 'status.state');
    assert.equal(await snapshot(t), before);
  });
});
