import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, nodeBody, startTestServer, statusBodyOf } from './harness.js';

function metricValue(text: string, line: RegExp): number {
  const m = text.split('\n').find((l) => line.test(l));
  assert.ok(m, `metric line ${line} in:\n${text}`);
  return Number(m.slice(m.lastIndexOf(' ') + 1));
}

describe('health, version and metrics', () => {
  it('/healthz and /readyz answer ok; /readyz is 503 after markNotReady', async () => {
    const t = await startTestServer();
    try {
      const health = await call(t, 'GET', '/healthz');
      assert.equal(health.status, 200);
      assert.equal(health.body['text'], 'ok');
      assert.equal((await call(t, 'GET', '/readyz')).status, 200);
      t.server.markNotReady();
      const ready = await call(t, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.equal(statusBodyOf(ready).reason, 'ServiceUnavailable');
      // Not ready is not dead: the API keeps serving during the shutdown delay.
      assert.equal((await call(t, 'GET', '/healthz')).status, 200);
      assert.equal((await call(t, 'GET', '/api/v1/nodes')).status, 200);
    } finally {
      await t.close();
    }
  });

  it('/readyz is 503 when the store is closed', async () => {
    const t = await startTestServer();
    try {
      await t.store.close();
      const ready = await call(t, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.equal(statusBodyOf(ready).reason, 'ServiceUnavailable');
    } finally {
      await t.close();
    }
  });

  it('/version names the version, commit and storage', async () => {
    const t = await startTestServer();
    try {
      const v = await call(t, 'GET', '/version');
      assert.deepEqual(v.body, { version: '1.2.3-test', gitCommit: 'abc1234', storage: 'sqlite' });
    } finally {
      await t.close();
    }
  });

  it('/metrics: request durations by route, commit batches, revision; one registry per server', async () => {
    const a = await startTestServer();
    const b = await startTestServer();
    try {
      await call(a, 'POST', '/api/v1/nodes', nodeBody('m1'));
      await call(a, 'POST', '/api/v1/nodes', nodeBody('m2'));
      await call(a, 'GET', '/api/v1/nodes/m1');
      const res = await a.server.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      const text = res.body;
      assert.equal(
        metricValue(
          text,
          /^http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/nodes",status_code="201"\}/,
        ),
        2,
      );
      assert.equal(
        metricValue(
          text,
          /^http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/nodes\/:name",status_code="200"\}/,
        ),
        1,
      );
      assert.equal(metricValue(text, /^shepherd_store_commit_batch_size_count /), 2);
      assert.ok(metricValue(text, /^shepherd_store_commit_duration_seconds_count /) >= 2);
      assert.equal(metricValue(text, /^shepherd_store_revision /), await a.store.currentRevision());
      // The other server counted nothing of a's traffic.
      const other = (await b.server.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.doesNotMatch(other, /route="\/api\/v1\/nodes",status_code="201"/);
      assert.equal(metricValue(other, /^shepherd_store_revision /), 1, 'a never-written store is at revision 1');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
