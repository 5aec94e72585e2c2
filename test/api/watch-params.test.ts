import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { systemClock } from '../../src/core/clock.js';
import { type FakeClock, flush } from '../support/fake-clock.js';
import { call, nodeBody, startTestServer, statusBodyOf, type TestServer } from './harness.js';
import { openWatch, type WatchConnection } from './watch-client.js';

async function listening(t: TestServer): Promise<string> {
  await t.server.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = t.server.app.server.address();
  assert.ok(addr !== null && typeof addr === 'object');
  return `http://127.0.0.1:${addr.port}`;
}

describe('watch timeoutSeconds beyond the timer range', () => {
  let t: TestServer;
  let base: string;
  before(async () => {
    t = await startTestServer({ clock: systemClock });
    base = await listening(t);
  });
  after(async () => {
    await t.close();
  });

  it('keeps the stream open (2^31 ms and more would have fired at once)', async () => {
    for (const seconds of ['2147484', '99999999999999999999999']) {
      const w = await openWatch(`${base}/api/v1/nodes?watch=true&resourceVersion=0&timeoutSeconds=${seconds}`);
      try {
        assert.equal(w.status, 200);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await call(t, 'POST', '/api/v1/nodes', nodeBody(`long-timeout-${seconds.length}`));
        assert.equal((await w.next())?.['type'], 'ADDED', `timeoutSeconds=${seconds}`);
      } finally {
        w.close();
      }
    }
  });
});

describe('watch resourceVersion checks, before the stream starts', () => {
  let t: TestServer;
  let clock: FakeClock;
  let base: string;
  const open: WatchConnection[] = [];
  before(async () => {
    t = await startTestServer();
    clock = t.clock as FakeClock;
    base = await listening(t);
  });
  afterEach(() => {
    for (const w of open.splice(0)) w.close();
  });
  after(async () => {
    await t.close();
  });

  it('a resourceVersion that is no revision is a 400 Status, not an ERROR in a 200 stream', async () => {
    for (const rv of ['99999999999999999999', '9007199254740993', '-1', '1e3', '0x10', ' 1']) {
      const res = await call(t, 'GET', `/api/v1/nodes?watch=true&resourceVersion=${encodeURIComponent(rv)}`);
      assert.equal(res.status, 400, rv);
      assert.equal(statusBodyOf(res).reason, 'BadRequest', rv);
    }
  });

  it('a resourceVersion the store has not reached: 504 Timeout with Retry-After after a bounded wait', async () => {
    const current = await t.store.currentRevision();
    const pending = call(t, 'GET', `/api/v1/nodes?watch=true&allowWatchBookmarks=true&resourceVersion=${current + 5}`);
    await flush();
    await clock.advance(3000);
    const res = await pending;
    assert.equal(res.status, 504);
    const status = statusBodyOf(res);
    assert.equal(status.reason, 'Timeout');
    assert.match(status.message, new RegExp(`Too large resource version: ${current + 5}, current: ${current}`));
    assert.equal(res.headers['retry-after'], '1');
  });

  it('a watch whose revision the store reaches during the wait starts, and never bookmarks ahead of the store', async () => {
    const current = await t.store.currentRevision();
    const pending = openWatch(
      `${base}/api/v1/nodes?watch=true&allowWatchBookmarks=true&resourceVersion=${current + 2}`,
    );
    await flush();
    await call(t, 'POST', '/api/v1/nodes', nodeBody('fr-1'));
    await call(t, 'POST', '/api/v1/nodes', nodeBody('fr-2'));
    await clock.advance(100);
    const w = await pending;
    open.push(w);
    assert.equal(w.status, 200);
    await call(t, 'POST', '/api/v1/nodes', nodeBody('fr-3'));
    const ev = await w.next();
    assert.equal(ev?.['type'], 'ADDED');
    assert.equal(ev?.['object'].metadata.name, 'fr-3');
    await clock.advance(1000);
    const bm = await w.next();
    assert.equal(bm?.['type'], 'BOOKMARK');
    assert.ok(Number(bm?.['object'].metadata.resourceVersion) <= (await t.store.currentRevision()));
  });
});
