import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildServer, type ApiServer, type BuildServerDeps } from '../../src/api/build-server.js';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../src/api/identity-rate-limiter.js';
import type { ServerTimeouts } from '../../src/api/server-options.js';
import { TokenAuthenticator } from '../../src/api/token-authenticator.js';
import { parseTokenFile } from '../../src/api/token-file.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { recordingLogger, type Logger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import { eventually } from '../support/eventually.js';
import { FakeClock } from '../support/fake-clock.js';
import { leaseBody, nodeBody, openTestStore, snapshot, type TestStore } from './harness.js';

const TOKEN_FILE =
  'tok-admin-1,admin,1,system:masters\ntok-view-2,alice,2,system:viewers\ntok-node-3,system:node:node-1,3,system:nodes\ntok-bob-4,bob,4';
const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

interface Started {
  t: TestStore;
  server: ApiServer;
  close(): Promise<void>;
}

async function start(
  options: {
    clock?: Clock;
    limits?: Partial<RateLimits>;
    maxWatches?: number;
    auth?: boolean;
    log?: Logger;
    timeouts?: Partial<ServerTimeouts>;
  } = {},
): Promise<Started> {
  const clock = options.clock ?? new FakeClock();
  const t = await openTestStore(clock);
  const deps: BuildServerDeps = {
    store: t.store,
    clock,
    random: seededRandom(5),
    log: options.log ?? false,
    version: 'test',
  };
  if (options.auth !== false) {
    deps.auth = {
      authenticator: new TokenAuthenticator(parseTokenFile(TOKEN_FILE)),
      rateLimits: { ...DEFAULT_RATE_LIMITS, ...options.limits },
      maxWatchesPerUser: options.maxWatches ?? 50,
    };
  }
  if (options.timeouts) deps.timeouts = options.timeouts;
  const server = await buildServer(deps);
  return { t, server, close: async () => (await server.app.close(), await t.close()) };
}

async function listen(s: Started): Promise<string> {
  await s.server.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = s.server.app.server.address();
  assert.ok(addr !== null && typeof addr === 'object');
  return `http://127.0.0.1:${addr.port}`;
}

describe('open paths, query tokens, redaction', () => {
  let s: Started;
  const log = recordingLogger();
  before(async () => (s = await start({ log })));
  after(async () => s.close());

  it('healthz, readyz and version need no token; metrics, api and unknown paths do', async () => {
    for (const url of ['/healthz', '/readyz', '/version'])
      assert.equal((await s.server.app.inject({ url })).statusCode, 200, url);
    for (const url of ['/metrics', '/api/v1/nodes', '/api/v1/nope', '/nope']) {
      const res = await s.server.app.inject({ url });
      assert.equal(res.statusCode, 401, url);
      assert.equal(res.json().reason, 'Unauthorized');
      assert.match(res.json().message, /Authorization: Bearer/);
    }
    assert.equal((await s.server.app.inject({ url: '/metrics', headers: as('tok-view-2') })).statusCode, 200);
    assert.equal((await s.server.app.inject({ url: '/nope', headers: as('tok-view-2') })).statusCode, 404);
    assert.equal(
      (await s.server.app.inject({ url: '/api/v1/nodes', headers: { authorization: 'Basic dG9rLWFkbWluLTE6' } }))
        .statusCode,
      401,
    );
  });

  it('a user in no group is authenticated but may do nothing', async () => {
    const res = await s.server.app.inject({ url: '/api/v1/nodes', headers: as('tok-bob-4') });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().message, /user "bob" may not list nodes/);
  });

  it('refuses tokens in the query string, even with a valid header, and keeps them out of the log', async () => {
    for (const url of [
      '/api/v1/nodes?token=tok-admin-1',
      '/healthz?access_token=tok-admin-1',
      '/api/v1/nodes?watch=1&Access_Token=tok-admin-1',
    ]) {
      const res = await s.server.app.inject({ url, headers: as('tok-admin-1') });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().reason, 'BadRequest');
      assert.match(res.json().message, /Authorization: Bearer header/);
    }
    await s.server.app.inject({ url: '/api/v1/nodes', headers: as('tok-admin-1') });
    const logged = JSON.stringify(log.lines);
    assert.ok(
      log.lines.some((l) => String(l.obj['url']).includes('token=[redacted]')),
      logged.slice(0, 500),
    );
    assert.ok(!logged.includes('tok-admin-1'), 'no token in any log line');
  });

  it('without a token file nothing is authenticated, but query tokens are still refused', async () => {
    const open = await start({ auth: false });
    try {
      assert.equal((await open.server.app.inject({ url: '/api/v1/nodes' })).statusCode, 200);
      assert.equal(
        (await open.server.app.inject({ method: 'POST', url: '/api/v1/nodes', payload: nodeBody('n') })).statusCode,
        201,
      );
      assert.equal((await open.server.app.inject({ url: '/api/v1/nodes?token=x' })).statusCode, 400);
    } finally {
      await open.close();
    }
  });
});

describe('per-identity rate limits', () => {
  it('throttles a node at its burst with 429, Retry-After and retryAfterSeconds, and refills at its rate', async () => {
    const clock = new FakeClock();
    const s = await start({ clock, limits: { node: { qps: 2, burst: 4 } } });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++)
        codes.push((await s.server.app.inject({ url: '/api/v1/leases/node-1', headers: as('tok-node-3') })).statusCode);
      assert.deepEqual(codes, [404, 404, 404, 404, 429]);
      const before = await snapshot(s.t);
      const res = await s.server.app.inject({
        method: 'POST',
        url: '/api/v1/leases',
        headers: as('tok-node-3'),
        payload: leaseBody('node-1'),
      });
      assert.equal(res.statusCode, 429);
      assert.equal(res.headers['retry-after'], '1');
      assert.equal(res.json().reason, 'TooManyRequests');
      assert.equal(res.json().details.retryAfterSeconds, 1);
      assert.match(
        res.json().message,
        /user "system:node:node-1" exceeded its rate limit of 2 requests\/s \(burst 4\)/,
      );
      assert.equal(await snapshot(s.t), before, 'a throttled write wrote nothing');
      // Other identities have their own buckets; masters are unlimited by default.
      for (let i = 0; i < 200; i++)
        assert.equal((await s.server.app.inject({ url: '/api/v1/nodes', headers: as('tok-admin-1') })).statusCode, 200);
      await clock.advance(1000);
      const after = [];
      for (let i = 0; i < 3; i++)
        after.push((await s.server.app.inject({ url: '/api/v1/leases/node-1', headers: as('tok-node-3') })).statusCode);
      assert.deepEqual(after, [404, 404, 429], 'one second refills two requests');
    } finally {
      await s.close();
    }
  });

  it('gives other users a tighter write bucket than read bucket', async () => {
    const s = await start({ limits: { userRead: { qps: 1, burst: 6 }, userWrite: { qps: 1, burst: 2 } } });
    try {
      const writes = [];
      for (let i = 0; i < 3; i++)
        writes.push(
          (await s.server.app.inject({ method: 'DELETE', url: '/api/v1/nodes/x', headers: as('tok-view-2') }))
            .statusCode,
        );
      assert.deepEqual(writes, [403, 403, 429]);
      const reads = [];
      for (let i = 0; i < 7; i++)
        reads.push((await s.server.app.inject({ url: '/api/v1/nodes', headers: as('tok-view-2') })).statusCode);
      assert.deepEqual(reads, [200, 200, 200, 200, 200, 200, 429]);
    } finally {
      await s.close();
    }
  });
});

async function openWatch(
  base: string,
  token: string,
): Promise<{ status: number; body: string; next(): Promise<string>; close(): void }> {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/v1/nodes?watch=true`, { headers: as(token), signal: abort.signal });
  if (res.status !== 200) return { status: res.status, body: await res.text(), next: async () => '', close: () => {} };
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  return {
    status: 200,
    body: '',
    next: async () => decoder.decode((await reader.read()).value ?? new Uint8Array()),
    close: () => abort.abort(),
  };
}

describe('watch cap and timeouts against slow clients', () => {
  it('caps open watches per user with 429, and frees a slot when a watch closes', async () => {
    const s = await start({ clock: systemClock, maxWatches: 2 });
    const base = await listen(s);
    try {
      const a = await openWatch(base, 'tok-view-2');
      const b = await openWatch(base, 'tok-view-2');
      assert.deepEqual([a.status, b.status], [200, 200]);
      const c = await openWatch(base, 'tok-view-2');
      assert.equal(c.status, 429);
      assert.match(JSON.parse(c.body).message, /already has 2 open watches/);
      const other = await openWatch(base, 'tok-node-3');
      assert.equal(other.status, 200, 'the cap is per user');
      a.close();
      // The server notices the closed connection asynchronously: retry until the slot is free.
      let lastStatus = 0;
      const d = await eventually(
        async () => {
          const w = await openWatch(base, 'tok-view-2');
          lastStatus = w.status;
          return w.status === 200 ? w : undefined;
        },
        { what: 'a watch slot freed by the closed watch', last: () => lastStatus, timeoutMs: 5_000 },
      );
      assert.equal(d.status, 200);
      for (const w of [b, other, d]) w.close();
    } finally {
      await s.close();
    }
  });

  it('cuts clients that dribble headers or bodies, but not a watch open longer than the request timeout', async () => {
    const s = await start({
      clock: systemClock,
      auth: false,
      timeouts: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
    });
    const base = await listen(s);
    const port = Number(new URL(base).port);
    try {
      const watch = await openWatch(base, 'none');
      const closedAfter = (lines: string[]): Promise<{ ms: number; answer: string }> =>
        new Promise((resolve) => {
          const started = Date.now();
          let answer = '';
          const sock = connect(port, '127.0.0.1', () => {
            for (const l of lines) sock.write(l);
          });
          sock.on('data', (b) => (answer += b.toString()));
          sock.on('error', () => {});
          sock.on('close', () => resolve({ ms: Date.now() - started, answer }));
        });
      const [headers, body] = await Promise.all([
        closedAfter(['GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\n']),
        closedAfter([
          'POST /api/v1/nodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"meta',
        ]),
      ]);
      assert.ok(headers.ms < 3000, `slow headers cut after ${headers.ms}ms`);
      assert.ok(body.ms < 3000, `slow body cut after ${body.ms}ms`);
      assert.match(headers.answer + body.answer, /408|^$/);
      // The watch has now been open for well over the 600 ms request timeout and still delivers.
      assert.equal(
        (await s.server.app.inject({ method: 'POST', url: '/api/v1/nodes', payload: nodeBody('late') })).statusCode,
        201,
      );
      assert.match(await watch.next(), /"ADDED".*"late"/);
      watch.close();
    } finally {
      await s.close();
    }
  });
});

describe('label limits at the HTTP layer', () => {
  let s: Started;
  before(async () => (s = await start()));
  after(async () => s.close());

  const labels = (n: number, value = 'v'): Record<string, string> =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));

  for (const [what, meta, want] of [
    ['64 labels', { labels: labels(64) }, 201],
    ['65 labels', { labels: labels(65) }, 422],
    ['a 63-character value', { labels: { k: 'v'.repeat(63) } }, 201],
    ['a 64-character value', { labels: { k: 'v'.repeat(64) } }, 422],
    ['a 64-character key name', { labels: { ['k'.repeat(64)]: 'v' } }, 422],
    ['a bad key', { labels: { 'a b': 'v' } }, 422],
  ] as const) {
    it(`${what} → ${want}`, async () => {
      const name = `n-${what.replace(/[^a-z0-9]+/g, '-')}`.replace(/-+$/, '');
      const before = await snapshot(s.t);
      const res = await s.server.app.inject({
        method: 'POST',
        url: '/api/v1/nodes',
        headers: as('tok-admin-1'),
        payload: { metadata: { name, ...meta }, spec: {} },
      });
      assert.equal(res.statusCode, want, res.body);
      if (want === 422) {
        assert.equal(res.json().reason, 'Invalid');
        assert.match(res.json().details.causes[0].field, /^metadata\.labels/);
        assert.equal(await snapshot(s.t), before);
      }
    });
  }

  it('refuses a body over 1 MiB with 413 before authorization reads it', async () => {
    const res = await s.server.app.inject({
      method: 'POST',
      url: '/api/v1/nodes',
      headers: { ...as('tok-admin-1'), 'content-type': 'application/json' },
      payload: JSON.stringify({ metadata: { name: 'big', annotations: { a: 'x'.repeat(1_100_000) } } }),
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().reason, 'RequestEntityTooLarge');
  });
});
