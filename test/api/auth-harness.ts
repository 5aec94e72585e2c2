import { buildServer, type ApiServer } from '../../src/api/build-server.js';
import { DEFAULT_RATE_LIMITS } from '../../src/api/identity-rate-limiter.js';
import { TokenAuthenticator } from '../../src/api/token-authenticator.js';
import { parseTokenFile } from '../../src/api/token-file.js';
import { seededRandom } from '../../src/core/random.js';
import { FakeClock, flush } from '../support/fake-clock.js';
import type { JsonObject } from '../support/json.js';
import { openTestStore, type TestStore } from './harness.js';

/** The identities of the HTTP authorization matrices (auth-http*.test.ts). */
export const TOKENS = { master: 'tok-master-5f1d', viewer: 'tok-viewer-9c2e', node1: 'tok-node1-77aa' };
const TOKEN_FILE = [
  `${TOKENS.master},admin,u-1,"system:masters"`,
  `${TOKENS.viewer},alice,u-2,"system:viewers"`,
  `${TOKENS.node1},system:node:node-1,u-3,"system:nodes"`,
].join('\n');

export const ROLES = ['master', 'viewer', 'node-1', 'anonymous', 'unknown-token'] as const;
export type Role = (typeof ROLES)[number];
export const HEADERS: Record<Role, Record<string, string>> = {
  master: { authorization: `Bearer ${TOKENS.master}` },
  viewer: { authorization: `Bearer ${TOKENS.viewer}` },
  'node-1': { authorization: `Bearer ${TOKENS.node1}` },
  anonymous: {},
  'unknown-token': { authorization: 'Bearer tok-nobody-0000' },
};

export interface Req {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  body?: unknown;
}

export interface AuthServer {
  clock: FakeClock;
  store: TestStore;
  server: ApiServer;
  /** Sends as `role`; an allowed watch is ended by its timeoutSeconds on the fake clock. */
  send(role: Role, req: Req): Promise<{ status: number; body: JsonObject }>;
  close(): Promise<void>;
}

/** A server with the token file above and no rate limits for nodes and readers. */
export async function startAuthServer(): Promise<AuthServer> {
  const clock = new FakeClock();
  const store = await openTestStore(clock);
  const server = await buildServer({
    store: store.store,
    clock,
    random: seededRandom(3),
    log: false,
    version: 'test',
    auth: {
      authenticator: new TokenAuthenticator(parseTokenFile(TOKEN_FILE)),
      rateLimits: { ...DEFAULT_RATE_LIMITS, node: { qps: 0, burst: 0 }, userRead: { qps: 0, burst: 0 } },
      maxWatchesPerUser: 50,
      // The tables send hundreds of unknown tokens from one address; auth-hardening.test.ts tests the throttle.
      maxAuthFailuresPerMinute: 0,
      eventLimits: { perMinute: 0 },
    },
  });
  const send = async (role: Role, req: Req): Promise<{ status: number; body: JsonObject }> => {
    const pending = server.app.inject({
      method: req.method,
      url: req.url,
      headers: HEADERS[role],
      ...(req.body === undefined ? {} : { payload: req.body as object }),
    });
    let settled = false;
    void pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    // An allowed watch streams until its timeoutSeconds, which runs on the fake clock.
    for (let i = 0; i < 5 && !settled; i++) {
      await flush();
      if (!settled) await clock.advance(1000);
    }
    const res = await pending;
    const body = String(res.headers['content-type']).includes('application/json') ? (res.json() as JsonObject) : {};
    return { status: res.statusCode, body };
  };
  return {
    clock,
    store,
    server,
    send,
    close: async () => {
      await server.app.close();
      await store.close();
    },
  };
}
