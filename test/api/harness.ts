import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/core/clock.js';
import { RESOURCES } from '../../src/core/kinds.js';
import type { Logger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import { buildServer, type ApiServer } from '../../src/api/build-server.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import type { ServerTimeouts } from '../../src/api/server-options.js';
import { Registry } from '../../src/registry/registry.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { SqliteStoreOptions } from '../../src/store/sqlite/sqlite-store-options.js';
import { FakeClock } from '../support/fake-clock.js';
import type { JsonObject } from '../support/json.js';

export interface TestStore {
  store: SqliteStore;
  close(): Promise<void>;
}

/** A real SQLite store in a fresh temp dir; compaction only when a test asks for it. */
export async function openTestStore(
  clock: Clock = new FakeClock(),
  metrics?: ApiMetrics,
  options: Partial<SqliteStoreOptions> = {},
): Promise<TestStore> {
  const dir = await mkdtemp(join(tmpdir(), 'shepherd-api-'));
  const store = await openSqliteStore({
    path: join(dir, 'shepherd.db'),
    clock,
    compactionIntervalMs: 3_600_000,
    ...(metrics === undefined ? {} : { onCommit: metrics.recordCommit }),
    ...options,
  });
  return {
    store,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface TestRegistry extends TestStore {
  registry: Registry;
  clock: FakeClock;
}

export async function openTestRegistry(): Promise<TestRegistry> {
  const clock = new FakeClock();
  const t = await openTestStore(clock);
  return { ...t, clock, registry: new Registry({ store: t.store, clock, random: seededRandom(7) }) };
}

export interface TestServer extends TestStore {
  server: ApiServer;
  clock: Clock;
  /** Closes the app, then the store. */
  close(): Promise<void>;
}

export async function startTestServer(
  options: {
    clock?: Clock;
    log?: Logger | false;
    bookmarkIntervalMs?: number;
    bodyLimit?: number;
    timeouts?: Partial<ServerTimeouts>;
    store?: Partial<SqliteStoreOptions>;
    nodeReadyHeader?: boolean;
  } = {},
): Promise<TestServer> {
  const clock = options.clock ?? new FakeClock();
  const metrics = new ApiMetrics({ defaultMetrics: false });
  const t = await openTestStore(clock, metrics, options.store);
  const random = seededRandom(42);
  const registry = new Registry({
    store: t.store,
    clock,
    random,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000,
  });
  const server = await buildServer({
    store: t.store,
    registry,
    clock,
    random,
    log: options.log ?? false,
    version: '1.2.3-test',
    gitCommit: 'abc1234',
    metrics,
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
    ...(options.nodeReadyHeader === undefined ? {} : { nodeReadyHeader: options.nodeReadyHeader }),
  });
  return {
    ...t,
    server,
    clock,
    close: async () => {
      // A test that listened may leave a keep-alive socket open, which app.close() would wait out (run-server.ts
      // does the same at shutdown).
      const closing = server.app.close();
      server.app.server.closeAllConnections();
      await closing;
      await t.close();
    },
  };
}

export function nodeBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'topology.kubernetes.io/zone': 'z1' } },
    spec: {},
    ...extra,
  };
}

export function leaseBody(name: string, renewTime = '2026-11-29T12:00:00.000000Z'): Record<string, unknown> {
  return { metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime } };
}

export function eventBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'Warning',
    reason: 'NodeNotReady',
    message: 'Node node-1 status is now: NodeNotReady',
    involvedObject: { kind: 'Node', name: 'node-1' },
    source: { component: 'node-controller' },
    ...extra,
  };
}

export function zoneBody(name: string): Record<string, unknown> {
  return { metadata: { name }, status: { state: 'Normal', nodes: 3, notReady: 0, evictionRate: 0.1 } };
}

export function podBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'web' } },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
    ...extra,
  };
}

export function deploymentBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main' }] } },
    },
    ...extra,
  };
}

export function verdictBody(node: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    node,
    action: 'MarkUnknown',
    reason: 'LeaseExpired',
    message: `node ${node} stopped renewing its lease`,
    dryRun: false,
    evidence: { observedAt: '2026-11-29T12:00:00.000Z', silentForSeconds: 41, graceSeconds: 40 },
    ...extra,
  };
}

/** Every object of every kind plus the store revision: what a rejected write must leave untouched. */
export async function snapshot(t: TestStore): Promise<string> {
  const parts: unknown[] = [await t.store.currentRevision()];
  for (const r of RESOURCES) parts.push((await t.store.list(r)).items);
  return JSON.stringify(parts);
}

export interface Json {
  status: number;
  body: JsonObject;
  headers: Record<string, unknown>;
}

/** inject() with a JSON body (or a raw string), answering the parsed JSON body. */
export async function call(
  t: TestServer,
  method: string,
  url: string,
  payload?: unknown,
  headers?: Record<string, string>,
): Promise<Json> {
  const res = await t.server.app.inject({
    method: method as 'GET',
    url,
    ...(payload === undefined ? {} : { payload: payload as string }),
    ...(headers === undefined ? {} : { headers }),
  });
  const type = String(res.headers['content-type'] ?? '');
  return {
    status: res.statusCode,
    body: type.includes('json') ? res.json() : { text: res.body },
    headers: res.headers,
  };
}

/** Asserts a Status body of the given reason and code. */
export function statusBodyOf(res: Json): { reason: string; code: number; message: string; details: JsonObject } {
  const b = res.body;
  if (b['kind'] !== 'Status' || b['apiVersion'] !== 'v1' || b['status'] !== 'Failure' || b['code'] !== res.status) {
    throw new Error(`not a Status body for ${res.status}: ${JSON.stringify(b)}`);
  }
  return b as { reason: string; code: number; message: string; details: JsonObject };
}
