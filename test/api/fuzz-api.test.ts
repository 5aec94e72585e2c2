import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildServer, type ApiServer } from '../../src/api/build-server.js';
import { TokenAuthenticator } from '../../src/api/token-authenticator.js';
import { parseTokenFile } from '../../src/api/token-file.js';
import { seededRandom } from '../../src/core/random.js';
import { foldedEventName } from '../../src/registry/event-registry.js';
import { FakeClock, flush } from '../support/fake-clock.js';
import { eventBody, leaseBody, nodeBody, openTestStore, zoneBody, type TestStore } from './harness.js';

// Random methods, paths, headers and bodies through app.inject(). Whatever arrives, the answer is never a 5xx, every
// error is a Status, and a request that is not answered 2xx leaves the store untouched.
const TOKEN_FILE =
  'fz-admin,admin,1,system:masters\nfz-view,viewer,2,system:viewers\nfz-node1,system:node:node-1,3,system:nodes\nfz-none,nobody,4';

const LONG_NAME = `${'l'.repeat(126)}.${'m'.repeat(126)}`; // 253 characters: the longest valid name
const name = fc.oneof(
  { arbitrary: fc.constantFrom('node-1', 'node-2', 'node-3', 'z1', 'e-1'), weight: 3 },
  fc.constantFrom('missing', 'default', 'a.b', 'UPPER', '-x-', '..', '%2e%2e', '%E0%A4%A', 'x'.repeat(300), ''),
  fc.constantFrom(LONG_NAME, `${LONG_NAME}x`, 'y'.repeat(800), encodeURIComponent('ü'.repeat(300))),
  fc.stringMatching(/^[a-z0-9.-]{1,20}$/),
);
const namespace = fc.constantFrom('node-lease', 'shepherd-system', 'kube-system', 'Bad_NS', '');
const resource = fc.oneof(
  { arbitrary: fc.constantFrom('nodes', 'leases', 'events', 'zones'), weight: 4 },
  fc.constantFrom('pods', 'node', ''),
);

const path = fc.oneof(
  { arbitrary: resource.map((r) => `/api/v1/${r}`), weight: 3 },
  { arbitrary: fc.tuple(resource, name).map(([r, n]) => `/api/v1/${r}/${n}`), weight: 3 },
  fc.tuple(resource, name, fc.constantFrom('status', 'scale', 'status/x')).map(([r, n, s]) => `/api/v1/${r}/${n}/${s}`),
  fc
    .tuple(namespace, fc.option(name, { nil: undefined }))
    .map(([ns, n]) => `/api/v1/namespaces/${ns}/leases${n === undefined ? '' : `/${n}`}`),
  fc.constantFrom(
    '/healthz',
    '/readyz',
    '/version',
    '/metrics',
    '/',
    '//api/v1/nodes',
    '/api/v2/nodes',
    '/api',
    '/api/v1',
    '/api/v1/nodes/',
    '/api/v1/nodes?',
  ),
);

const queryPair = fc.oneof(
  {
    arbitrary: fc.constantFrom('watch=true', 'watch=1', 'watch=false', 'allowWatchBookmarks=true', 'resourceVersion=0'),
    weight: 3,
  },
  fc.constantFrom('token=fz-admin', 'access_token=x'),
  fc
    .tuple(
      fc.constantFrom('resourceVersion', 'labelSelector', 'fieldSelector', 'timeoutSeconds', 'limit', 'continue'),
      fc.string({ maxLength: 30 }),
    )
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`),
  fc.constantFrom(
    'labelSelector=a%3Db%2Cc!%3Dd',
    'fieldSelector=involvedObject.name%3Dnode-1',
    'labelSelector=%3D%3D%3D',
    'resourceVersion=-1',
    'timeoutSeconds=1e9',
    'limit=99999999999999999999',
    // base64url of {"v":1,"r":"nodes","rv":1,"k":"a"}: a well-formed token for a list that never was.
    'continue=eyJ2IjoxLCJyIjoibm9kZXMiLCJydiI6MSwiayI6ImEifQ',
    'resourceVersion=99999999999999999999',
    'resourceVersion=1e3',
    'resourceVersion=999999',
    'resourceVersion=9007199254740993',
    'timeoutSeconds=2147484',
    'timeoutSeconds=99999999999999999999999',
  ),
);
const query = fc.array(queryPair, { maxLength: 2 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.join('&')}`));

// Weighted towards requests that pass authentication and parse, so the run reaches authorization and the registry.
const authorization = fc.oneof(
  { arbitrary: fc.constantFrom('Bearer fz-admin', 'Bearer fz-node1', 'Bearer fz-view'), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      undefined,
      'Bearer fz-none',
      'Bearer wrong',
      'Bearer ',
      'bearer fz-admin',
      'Basic Zm9vOmJhcg==',
      'fz-admin',
      'Bearer fz-admin fz-admin',
    ),
    weight: 2,
  },
);
const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/x-ndjson',
      'multipart/form-data',
      'garbage/',
    ),
    weight: 2,
  },
);

/** Events a node could try to forge: the server's fold name, the control plane's name, another host or object. */
const forgedEvents = [
  eventBody({
    metadata: { name: foldedEventName(eventBody() as Parameters<typeof foldedEventName>[0]) },
    involvedObject: { kind: 'Node', name: 'node-1' },
  }),
  eventBody({ involvedObject: { kind: 'Node', name: 'node-1' }, source: { component: 'node-controller' } }),
  eventBody({ involvedObject: { kind: 'Node', name: 'node-1' }, source: { component: 'x', host: 'node-2' } }),
  eventBody({ involvedObject: { kind: 'Pod', name: 'p' }, source: { component: 'x' } }),
  eventBody({ source: { component: 'x' }, lastTimestamp: '2036-01-01T00:00:00Z' }),
];
/** Free text at and past its limits. */
const hugeText = [
  eventBody({ message: 'm'.repeat(1025) }),
  eventBody({ source: { component: 'x' }, message: 'm'.repeat(1024) }),
  nodeBody('node-1', { status: { conditions: [{ type: 'Ready', status: 'True', message: 'm'.repeat(5000) }] } }),
  nodeBody('node-3', { metadata: { name: 'node-3', annotations: { 'a.io/x': 'é'.repeat(40_000) } } }),
  nodeBody('node-3', { metadata: { name: 'node-3', labels: { 'topology.kubernetes.io/zone': 'Zone_A' } } }),
  nodeBody(LONG_NAME),
  leaseBody(LONG_NAME),
];
const validish = fc.oneof(
  fc.constantFrom(
    nodeBody('node-1'),
    nodeBody('node-3'),
    leaseBody('node-1'),
    leaseBody('node-2'),
    eventBody(),
    zoneBody('z1'),
    zoneBody('default'),
  ),
  fc.constantFrom(...forgedEvents, ...hugeText),
  fc
    .tuple(
      fc.constantFrom(nodeBody('node-1'), leaseBody('node-1'), eventBody()),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    )
    .map(([b, extra]) => ({ ...b, ...extra })),
  fc
    .tuple(fc.constantFrom('node-1', 'node-2'), fc.jsonValue({ maxDepth: 3 }))
    .map(([n, spec]) => ({ metadata: { name: n, resourceVersion: '1' }, spec })),
);
const body = fc.option(
  fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    { arbitrary: validish.map((v) => JSON.stringify(v)), weight: 3 },
    fc.tuple(validish, fc.nat()).map(([v, k]) => {
      const s = JSON.stringify(v);
      return s.slice(0, k % Math.max(1, s.length));
    }),
    fc.constantFrom(
      '',
      'null',
      '{',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{}}}',
      '{"metadata":{"name":"node-1","labels":{"__proto__":{"polluted":"yes"}}},"spec":{}}',
      '{"metadata":{"name":"node-1"},"\\u005f_proto__":{}}',
      '{"metadata":{"name":"node-1"},"spec":{"taints":[{"constructor":{"prototype":{"x":1}}}]}}',
      '\u0000',
      `{"metadata":{"name":"${'n'.repeat(2_000_000)}"}}`,
      `"${'x'.repeat(100_000)}"`,
    ),
  ),
  { nil: undefined, freq: 8 },
);

const anyRequest = fc.record({
  method: fc.oneof(
    { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), weight: 4 },
    fc.constantFrom('PATCH', 'HEAD', 'OPTIONS'),
  ),
  path,
  query,
  authorization,
  contentType,
  body,
  /** Most clients send Content-Type only with a body; sometimes send it anyway. */
  typeWithoutBody: fc.boolean(),
});

/** Well-formed creates and updates by the three roles, so the run also exercises writes that are allowed. */
const plausible = fc
  .tuple(
    fc.constantFrom(
      ['/api/v1/nodes', (n: string) => nodeBody(n)],
      ['/api/v1/leases', (n: string) => leaseBody(n)],
      ['/api/v1/events', (n: string) => eventBody({ involvedObject: { kind: 'Node', name: n } })],
      ['/api/v1/zones', (n: string) => zoneBody(n)],
    ) as fc.Arbitrary<[string, (n: string) => unknown]>,
    fc.constantFrom('node-1', 'node-2', 'node-3', 'node-4', 'z1', 'z9'),
    fc.constantFrom('Bearer fz-admin', 'Bearer fz-node1', 'Bearer fz-view'),
    fc.constantFrom('POST', 'PUT', 'DELETE'),
  )
  .map(([[base, make], n, authorization, method]) => ({
    method,
    path: method === 'POST' ? base : `${base}/${n}`,
    query: '',
    authorization,
    contentType: 'application/json',
    body: method === 'DELETE' ? undefined : JSON.stringify(make(n)),
    typeWithoutBody: false,
  }));

const request = fc.oneof({ arbitrary: anyRequest, weight: 4 }, plausible);

describe('API fuzz (fast-check, fixed seed)', () => {
  const clock = new FakeClock();
  let t: TestStore;
  let server: ApiServer;

  before(async () => {
    t = await openTestStore(clock);
    server = await buildServer({
      store: t.store,
      clock,
      random: seededRandom(11),
      log: false,
      version: 'fuzz',
      auth: {
        authenticator: new TokenAuthenticator(parseTokenFile(TOKEN_FILE)),
        rateLimits: {
          master: { qps: 0, burst: 0 },
          node: { qps: 0, burst: 0 },
          userRead: { qps: 0, burst: 0 },
          userWrite: { qps: 0, burst: 0 },
        },
        maxWatchesPerUser: 0,
        // Every fuzzed request comes from one address: throttling its bad tokens would hide everything else.
        maxAuthFailuresPerMinute: 0,
        eventLimits: { perMinute: 0 },
      },
    });
    await server.registry.nodes.create(nodeBody('node-1'));
    await server.registry.nodes.create(nodeBody('node-2'));
    await server.registry.leases.create('node-lease', leaseBody('node-1'));
    await server.registry.events.create(eventBody({ metadata: { name: 'e-1' } }));
    await server.registry.zones.create(zoneBody('z1'));
  });
  after(async () => {
    await server.app.close();
    await t.close();
  });

  it(
    'never answers 5xx, answers every error with a Status, and writes nothing it refuses',
    { timeout: 240_000 },
    async () => {
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          // A watch streams until its timeoutSeconds: the last value wins, so this one bounds every fuzzed watch.
          const url = /watch=(true|1)/.test(r.query) ? `${r.path}${r.query}&timeoutSeconds=1` : `${r.path}${r.query}`;
          const headers: Record<string, string> = {};
          if (r.authorization !== undefined) headers['authorization'] = r.authorization;
          if (r.contentType !== undefined && (r.body !== undefined || r.typeWithoutBody))
            headers['content-type'] = r.contentType;
          const revision = await t.store.currentRevision();
          const pending = server.app.inject({
            method: r.method as 'GET',
            url,
            headers,
            ...(r.body === undefined ? {} : { payload: r.body }),
          });
          let settled = false;
          void pending.then(
            () => (settled = true),
            () => (settled = true),
          );
          for (let i = 0; i < 5 && !settled; i++) {
            await flush();
            if (!settled) await clock.advance(1000);
          }
          const res = await pending;
          seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
          const what = `${r.method} ${url} → ${res.statusCode} ${res.body.slice(0, 300)}`;
          // The one 5xx allowed: a watch from a revision the store never reached (kube-apiserver answers it so).
          const tooLarge = res.statusCode === 504 && /Too large resource version/.test(res.body);
          assert.ok(res.statusCode < 500 || tooLarge, what);
          assert.equal(({} as Record<string, unknown>)['polluted'], undefined, `${what}: Object.prototype polluted`);
          if (res.statusCode >= 400 && r.method !== 'HEAD') {
            const status = res.json() as Record<string, unknown>;
            assert.equal(status['kind'], 'Status', what);
            assert.equal(status['apiVersion'], 'v1', what);
            assert.equal(status['status'], 'Failure', what);
            assert.equal(status['code'], res.statusCode, what);
            assert.equal(typeof status['reason'], 'string', what);
            assert.equal(typeof status['message'], 'string', what);
          }
          if (res.statusCode < 200 || res.statusCode >= 300)
            assert.equal(await t.store.currentRevision(), revision, `${what}: the store changed`);
        }),
        { seed: 7, numRuns: 300 },
      );
      // The run is only worth something if it reached past authentication: some writes went through, some were refused.
      for (const code of [200, 201, 400, 401, 403, 404, 422])
        assert.ok((seen.get(code) ?? 0) > 0, `no ${code} in ${JSON.stringify([...seen])}`);
    },
  );
});
