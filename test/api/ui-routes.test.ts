import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buildServer, type ApiServer } from '../../src/api/build-server.js';
import { DEFAULT_RATE_LIMITS } from '../../src/api/identity-rate-limiter.js';
import { TokenAuthenticator } from '../../src/api/token-authenticator.js';
import { parseTokenFile } from '../../src/api/token-file.js';
import { UI_CONTENT_SECURITY_POLICY } from '../../src/api/ui-routes.js';
import { seededRandom } from '../../src/core/random.js';
import { FakeClock } from '../support/fake-clock.js';
import { tempDir } from '../support/processes.js';
import { openTestStore, type TestStore } from './harness.js';

// The dashboard's static files as src/api/ui-routes.ts serves them: a built-like folder in a temp dir, through
// app.inject() with the server's real hooks (authentication on), so headers, caching and refusals are the wire's.
const SCRIPT = 'app-ABCD2345.js';
const INDEX = `<!doctype html><script type="module" src="${SCRIPT}"></script>`;

async function serverFor(store: TestStore, uiDir: string | undefined, auth: boolean): Promise<ApiServer> {
  return buildServer({
    store: store.store,
    clock: new FakeClock(),
    random: seededRandom(1),
    log: false,
    version: 'test',
    ...(uiDir === undefined ? {} : { uiDir }),
    ...(auth
      ? {
          auth: {
            authenticator: new TokenAuthenticator(parseTokenFile('tok-v,viewer,u-1,"system:viewers"', 'test')),
            rateLimits: DEFAULT_RATE_LIMITS,
            maxWatchesPerUser: 0,
          },
        }
      : {}),
  });
}

describe('dashboard static files', () => {
  const dir = tempDir('shepherd-ui-');
  const ui = `${dir.path}/ui`;
  let store: TestStore;
  let server: ApiServer;

  before(async () => {
    mkdirSync(`${ui}/nested`, { recursive: true });
    writeFileSync(`${ui}/index.html`, INDEX);
    writeFileSync(`${ui}/${SCRIPT}`, 'console.log(1)');
    writeFileSync(`${ui}/app-ABCD2345.css`, 'body{}');
    writeFileSync(`${ui}/favicon.svg`, '<svg/>');
    writeFileSync(`${ui}/notes.unknown`, 'not served: no content type for it');
    writeFileSync(`${ui}/nested/secret.js`, 'not served: not in the flat folder');
    writeFileSync(`${dir.path}/outside.html`, 'not served: outside the folder');
    store = await openTestStore();
    server = await serverFor(store, ui, true);
  });

  after(async () => {
    await server.app.close();
    await store.close();
    dir.cleanup();
  });

  it('/ and /ui redirect to /ui/; the page needs no token even with authentication on', async () => {
    for (const url of ['/', '/ui']) {
      const res = await server.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 302, url);
      assert.equal(res.headers['location'], '/ui/');
    }
    const page = await server.app.inject({ method: 'GET', url: '/ui/' });
    assert.equal(page.statusCode, 200);
    assert.equal(page.body, INDEX);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.headers['cache-control'], 'no-cache');
    // The API itself still wants one.
    assert.equal((await server.app.inject({ method: 'GET', url: '/api/v1/nodes' })).statusCode, 401);
  });

  it('every file carries the strict CSP and nosniff; content types by extension', async () => {
    const cases: Array<[string, string]> = [
      [`/ui/${SCRIPT}`, 'text/javascript; charset=utf-8'],
      ['/ui/app-ABCD2345.css', 'text/css; charset=utf-8'],
      ['/ui/favicon.svg', 'image/svg+xml'],
      ['/ui/index.html', 'text/html; charset=utf-8'],
    ];
    for (const [url, type] of cases) {
      const res = await server.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], type, url);
      assert.equal(res.headers['content-security-policy'], UI_CONTENT_SECURITY_POLICY, url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['x-frame-options'], 'DENY', url);
    }
    assert.match(UI_CONTENT_SECURITY_POLICY, /default-src 'self'/);
    assert.doesNotMatch(UI_CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval|\*/);
  });

  it('content-hashed files are cached for good, the rest revalidated with an ETag (304)', async () => {
    const script = await server.app.inject({ method: 'GET', url: `/ui/${SCRIPT}` });
    assert.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable');
    const icon = await server.app.inject({ method: 'GET', url: '/ui/favicon.svg' });
    assert.equal(icon.headers['cache-control'], 'no-cache');
    const etag = icon.headers['etag'] as string;
    assert.match(etag, /^"[\w-]+"$/);
    const again = await server.app.inject({
      method: 'GET',
      url: '/ui/favicon.svg',
      headers: { 'if-none-match': etag },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const head = await server.app.inject({ method: 'HEAD', url: `/ui/${SCRIPT}` });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  it('nothing outside the built files is reachable: traversal, nested, unknown types are 404 Statuses', async () => {
    for (const url of [
      '/ui/../outside.html',
      '/ui/%2e%2e/outside.html',
      '/ui/..%2foutside.html',
      '/ui/nested/secret.js',
      '/ui/nested%2fsecret.js',
      '/ui/notes.unknown',
      '/ui/missing.js',
      '/ui/%2fetc%2fpasswd',
    ]) {
      const res = await server.app.inject({ method: 'GET', url });
      // A path that normalises out of /ui/ is no dashboard route at all: the API's 401 (authentication is on).
      const outside = url === '/ui/../outside.html' || url === '/ui/%2e%2e/outside.html';
      assert.equal(res.statusCode, outside ? 401 : 404, url);
      const body = res.json() as { kind: string; reason: string };
      assert.equal(body.kind, 'Status', url);
      assert.equal(body.reason, outside ? 'Unauthorized' : 'NotFound', url);
      assert.doesNotMatch(res.body, /not served/, url);
    }
  });

  it('a token in the URL is refused here too', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/ui/?token=tok-v' });
    assert.equal(res.statusCode, 400);
  });
});

describe('dashboard turned off or not built', () => {
  let store: TestStore;
  const dir = tempDir('shepherd-ui-');

  before(async () => {
    store = await openTestStore();
  });

  after(async () => {
    await store.close();
    dir.cleanup();
  });

  it('--ui=false: /, /ui/ and its files are 404 Statuses saying how to turn it on, without a token', async () => {
    const server = await serverFor(store, undefined, true);
    try {
      for (const url of ['/', '/ui', '/ui/', `/ui/${SCRIPT}`]) {
        const res = await server.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 404, url);
        const body = res.json() as { kind: string; reason: string; message: string };
        assert.equal(body.kind, 'Status');
        assert.equal(body.reason, 'NotFound');
        assert.match(body.message, /--ui=false/);
      }
    } finally {
      await server.app.close();
    }
  });

  it('a folder without index.html answers 404 saying to build the dashboard', async () => {
    const server = await serverFor(store, `${dir.path}/never-built`, false);
    try {
      const res = await server.app.inject({ method: 'GET', url: '/ui/' });
      assert.equal(res.statusCode, 404);
      assert.match((res.json() as { message: string }).message, /npm run build/);
    } finally {
      await server.app.close();
    }
  });
});
