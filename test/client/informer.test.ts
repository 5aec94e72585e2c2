import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { HttpApiClient } from '../../src/client/http-client.js';
import { Informer } from '../../src/client/informer.js';
import type { Lease } from '../../src/core/lease.js';
import { recordingLogger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import { eventually } from '../support/eventually.js';
import { flush } from '../support/fake-clock.js';
import { FakeHttpServer, type WatchConn } from '../support/fake-http-server.js';
import { StepClock } from './step-clock.js';

const lease = (name: string, rv: string, renewTime = '2026-11-29T12:00:00.000Z'): Lease => ({
  apiVersion: 'coordination/v1',
  kind: 'Lease',
  metadata: {
    name,
    namespace: 'node-lease',
    uid: `uid-${name}`,
    resourceVersion: rv,
    creationTimestamp: '2026-11-29T11:00:00.000Z',
  },
  spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
});
const leaseList = (rv: string, items: Lease[]) => ({
  apiVersion: 'coordination/v1',
  kind: 'LeaseList',
  metadata: { resourceVersion: rv },
  items,
});
const bookmark = (rv: string) => ({
  type: 'BOOKMARK',
  object: { kind: 'Lease', apiVersion: 'coordination/v1', metadata: { resourceVersion: rv } },
});
const gone = {
  type: 'ERROR',
  object: {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    reason: 'Gone',
    code: 410,
    message: 'too old resource version',
  },
};
const PATH = '/api/v1/leases';

describe('Informer', () => {
  let server: FakeHttpServer;
  let client: HttpApiClient;
  let clock: StepClock;
  let informer: Informer<Lease>;
  let seen: string[];
  let ac: AbortController;
  let running: Promise<void>;

  beforeEach(async () => {
    server = await FakeHttpServer.start();
    server.acceptWatches(PATH);
    clock = new StepClock();
    client = new HttpApiClient({
      addresses: [server.address],
      clock,
      random: seededRandom(3),
      retry: { maxAttempts: 1 },
    });
    informer = new Informer<Lease>({
      client: client.leases(),
      clock,
      log: recordingLogger(),
      random: seededRandom(9),
      keyOf: (l) => `${l.metadata.namespace}/${l.metadata.name}`,
      backoff: { initialMs: 1, maxMs: 4 },
      name: 'leases',
    });
    seen = [];
    informer.onEvent((type, obj, old) =>
      seen.push(
        `${type} ${obj.metadata.name}@${obj.metadata.resourceVersion}${old ? ` (was ${old.metadata.resourceVersion})` : ''}`,
      ),
    );
    ac = new AbortController();
    running = Promise.resolve();
  });
  afterEach(async () => {
    ac.abort();
    await running;
    await client.close();
    await server.close();
  });

  const synced = (rv: string): Promise<unknown> =>
    eventually(() => informer.lastSyncResourceVersion() === rv, {
      what: `the informer at resourceVersion ${rv}`,
      last: () => informer.lastSyncResourceVersion(),
      timeoutMs: 5_000,
    });

  /** Starts the informer over a first list and returns its first watch stream. */
  async function start(listRv: string, items: Lease[]): Promise<WatchConn> {
    server.replyList(PATH, leaseList(listRv, items), 1);
    running = informer.run(ac.signal);
    await informer.waitForSync(ac.signal);
    return server.nextWatch();
  }

  it('lists, syncs, and watches from the list resourceVersion with bookmarks', async () => {
    assert.equal(informer.hasSynced(), false);
    assert.equal(informer.lastSyncResourceVersion(), '');
    const w = await start('20', [lease('a', '15'), lease('b', '12')]);
    assert.equal(informer.hasSynced(), true);
    assert.equal(informer.lastSyncResourceVersion(), '20');
    assert.deepEqual(
      informer.list().map((l) => l.metadata.name),
      ['a', 'b'],
    );
    assert.equal(informer.get('node-lease/a')?.metadata.resourceVersion, '15');
    assert.deepEqual(seen, ['ADDED a@15', 'ADDED b@12']);
    assert.equal(w.request.query.get('resourceVersion'), '20');
    assert.equal(w.request.query.get('allowWatchBookmarks'), 'true');
  });

  it('applies watch events to the cache and hands handlers the old copy', async () => {
    const w = await start('20', [lease('a', '15'), lease('b', '12')]);
    seen.length = 0;
    w.send({ type: 'MODIFIED', object: lease('a', '21', '2026-11-29T12:00:10.000Z') });
    w.send({ type: 'ADDED', object: lease('c', '22') });
    w.send({ type: 'DELETED', object: lease('b', '23') });
    await synced('23');
    assert.deepEqual(seen, ['MODIFIED a@21 (was 15)', 'ADDED c@22', 'DELETED b@23 (was 12)']);
    assert.deepEqual(
      informer.list().map((l) => `${l.metadata.name}@${l.metadata.resourceVersion}`),
      ['a@21', 'c@22'],
    );
    assert.equal(informer.get('node-lease/a')?.spec.renewTime, '2026-11-29T12:00:10.000Z');
    assert.equal(informer.get('node-lease/b'), undefined);
  });

  it('keeps list() and sortedView() current through modifications, adds and deletes, in key order', async () => {
    const w = await start('20', [lease('b', '15'), lease('a', '12')]);
    const names = (objs: readonly Lease[]): string[] =>
      objs.map((l) => `${l.metadata.name}@${l.metadata.resourceVersion}`);
    assert.deepEqual(names(informer.sortedView()), ['a@12', 'b@15']);
    w.send({ type: 'MODIFIED', object: lease('b', '21') });
    await synced('21');
    // Same keys, so the order is kept; the view read after the change holds the new object.
    assert.deepEqual(names(informer.sortedView()), ['a@12', 'b@21']);
    assert.deepEqual(names(informer.list()), ['a@12', 'b@21']);
    w.send({ type: 'ADDED', object: lease('aa', '22') });
    w.send({ type: 'MODIFIED', object: lease('a', '23') });
    await synced('23');
    assert.deepEqual(names(informer.sortedView()), ['a@23', 'aa@22', 'b@21']);
    w.send({ type: 'DELETED', object: lease('aa', '24') });
    await synced('24');
    assert.deepEqual(names(informer.list()), ['a@23', 'b@21']);
  });

  it('advances lastSyncResourceVersion on bookmarks while leases are quiet, and not while the stream is stalled', async () => {
    const w = await start('20', [lease('a', '15')]);
    w.send(bookmark('31'));
    await synced('31');
    w.send(bookmark('47'));
    await synced('47');
    assert.deepEqual(seen, ['ADDED a@15'], 'bookmarks are not object events');
    // The server keeps the connection open but sends nothing more (writes elsewhere advance its revision):
    // the cache must admit it has seen nothing past 47, however long that lasts. The informer keeps time only
    // through its clock, whose sleeps end at once here: after many idle turns it has asked for none, so no
    // amount of waiting would move it.
    const sleepsBefore = clock.sleeps.length;
    for (let i = 0; i < 20; i++) await flush();
    assert.equal(clock.sleeps.length, sleepsBefore, 'no timer runs while the stream is quiet');
    assert.equal(informer.lastSyncResourceVersion(), '47');
    assert.equal(w.closed, false);
    assert.equal(server.requests.filter((r) => r.query.get('watch') === 'true').length, 1, 'no reconnect happened');
  });

  it('resumes from the last resourceVersion seen when the stream ends or drops, without relisting', async () => {
    const w1 = await start('20', [lease('a', '15')]);
    w1.send({ type: 'MODIFIED', object: lease('a', '25') });
    w1.send(bookmark('30'));
    await synced('30');
    w1.end();
    const w2 = await server.nextWatch();
    assert.equal(w2.request.query.get('resourceVersion'), '30');
    w2.send({ type: 'ADDED', object: lease('b', '33') });
    await synced('33');
    w2.drop();
    const w3 = await server.nextWatch();
    assert.equal(w3.request.query.get('resourceVersion'), '33');
    assert.equal(
      server.requests.filter((r) => r.method === 'GET' && r.query.get('watch') !== 'true').length,
      1,
      'listed once',
    );
    assert.deepEqual(
      informer.list().map((l) => l.metadata.name),
      ['a', 'b'],
    );
  });

  it('relists on Gone: the cache is replaced, deleted objects disappear, handlers see the difference', async () => {
    const w1 = await start('20', [lease('a', '15'), lease('b', '12'), lease('c', '18')]);
    seen.length = 0;
    server.replyList(PATH, leaseList('90', [lease('a', '15'), lease('c', '80'), lease('d', '85')]), 1);
    w1.send(gone);
    const w2 = await server.nextWatch();
    assert.equal(w2.request.query.get('resourceVersion'), '90');
    assert.equal(informer.lastSyncResourceVersion(), '90');
    assert.deepEqual(
      informer.list().map((l) => `${l.metadata.name}@${l.metadata.resourceVersion}`),
      ['a@15', 'c@80', 'd@85'],
    );
    assert.equal(informer.get('node-lease/b'), undefined);
    assert.deepEqual(seen, ['DELETED b@12 (was 12)', 'MODIFIED c@80 (was 18)', 'ADDED d@85']);
  });

  it('backs off and retries when the first list fails, and is not synced until it succeeds', async () => {
    server.replyStatus('GET', PATH, 503, 'ServiceUnavailable', 'store not open', {}, 2);
    const w = await start('20', [lease('a', '15')]);
    assert.equal(informer.hasSynced(), true);
    assert.equal(w.request.query.get('resourceVersion'), '20');
    assert.equal(clock.sleeps.length, 2);
    assert.ok(clock.sleeps[1]! >= clock.sleeps[0]!, `the delay grows: ${clock.sleeps}`);
  });

  it('rejects waitForSync when its signal aborts before a sync', async () => {
    const waiting = new AbortController();
    const p = informer.waitForSync(waiting.signal);
    waiting.abort();
    await assert.rejects(p, { name: 'AbortError' });
    assert.equal(informer.hasSynced(), false);
  });

  it('run resolves when its signal aborts', async () => {
    await start('20', []);
    ac.abort();
    await running;
    assert.equal(informer.hasSynced(), true);
  });
});
