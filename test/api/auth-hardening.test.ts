import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildServer, type ApiServer } from '../../src/api/build-server.js';
import { DEFAULT_RATE_LIMITS } from '../../src/api/identity-rate-limiter.js';
import { TokenAuthenticator } from '../../src/api/token-authenticator.js';
import { parseTokenFile } from '../../src/api/token-file.js';
import { recordingLogger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import { FakeClock } from '../support/fake-clock.js';
import { openTestStore, type TestStore } from './harness.js';

const TOKEN_FILE = [
  'tok-admin,admin,1,system:masters',
  'tok-view,viewer,2,system:viewers',
  'tok-mon,prometheus,3,system:monitoring',
  'tok-node,system:node:node-1,4,system:nodes',
  'tok-none,nobody,5',
].join('\n');

describe('/metrics needs system:masters, system:viewers or system:monitoring', () => {
  let t: TestStore;
  let server: ApiServer;
  before(async () => {
    const clock = new FakeClock();
    t = await openTestStore(clock);
    server = await buildServer({
      store: t.store,
      clock,
      random: seededRandom(1),
      log: false,
      version: 'test',
      auth: {
        authenticator: new TokenAuthenticator(parseTokenFile(TOKEN_FILE)),
        rateLimits: DEFAULT_RATE_LIMITS,
        maxWatchesPerUser: 50,
      },
    });
  });
  after(async () => {
    await server.app.close();
    await t.close();
  });

  const get = (url: string, token: string) => server.app.inject({ url, headers: { authorization: `Bearer ${token}` } });

  it('answers the three groups and refuses nodes and identities in no group with a Status', async () => {
    for (const token of ['tok-admin', 'tok-view', 'tok-mon']) {
      const res = await get('/metrics', token);
      assert.equal(res.statusCode, 200, token);
      assert.match(res.body, /shepherd_store_revision/);
    }
    for (const token of ['tok-node', 'tok-none']) {
      const res = await get('/metrics', token);
      assert.equal(res.statusCode, 403, token);
      assert.equal(res.json().reason, 'Forbidden');
      assert.match(res.json().message, /system:masters, system:viewers, system:monitoring/);
    }
  });

  it('gives system:monitoring nothing under /api', async () => {
    assert.equal((await get('/api/v1/nodes', 'tok-mon')).statusCode, 403);
  });
});

describe('failed logins are throttled per source address and logged without the token', () => {
  const clock = new FakeClock();
  const log = recordingLogger();
  let t: TestStore;
  let server: ApiServer;
  before(async () => {
    t = await openTestStore(clock);
    server = await buildServer({
      store: t.store,
      clock,
      random: seededRandom(1),
      log,
      version: 'test',
      auth: {
        authenticator: new TokenAuthenticator(parseTokenFile(TOKEN_FILE)),
        rateLimits: DEFAULT_RATE_LIMITS,
        maxWatchesPerUser: 50,
        maxAuthFailuresPerMinute: 5,
      },
    });
  });
  after(async () => {
    await server.app.close();
    await t.close();
  });

  const from = (address: string, token?: string) =>
    server.app.inject({
      url: '/api/v1/nodes',
      remoteAddress: address,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  it('answers 429 with Retry-After to every request from an address after N bad tokens in a minute', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await from('10.0.0.7', `guess-${i}`)).statusCode, 401);
    // No token at all is not a guess: it does not count.
    assert.equal((await from('10.0.0.7')).statusCode, 401);
    const blocked = await from('10.0.0.7', 'tok-admin');
    assert.equal(blocked.statusCode, 429);
    assert.equal(blocked.json().reason, 'TooManyRequests');
    assert.equal(blocked.headers['retry-after'], '60');
    assert.match(blocked.json().message, /--max-auth-failures-per-minute/);
    // Another address is not affected.
    assert.equal((await from('10.0.0.8', 'tok-admin')).statusCode, 200);
    await clock.advance(30_000);
    assert.equal((await from('10.0.0.7', 'tok-admin')).headers['retry-after'], '30');
    await clock.advance(30_000);
    assert.equal((await from('10.0.0.7', 'tok-admin')).statusCode, 200);
  });

  it('logs each refused token at warn with the address, never the token', () => {
    const warns = log.lines.filter((l) => l.level === 'warn' && /bearer token this server does not know/.test(l.msg));
    assert.equal(warns.length, 5);
    assert.equal(warns[0]?.obj['address'], '10.0.0.7');
    assert.doesNotMatch(JSON.stringify(log.lines), /guess-/);
  });
});
