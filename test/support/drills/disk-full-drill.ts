// Drill 6 (RELIABILITY.md): disk full and a read-only database. A full disk is simulated with SQLite's
// max_page_count (a tmpfs or loop mount needs privileges CI does not have): SQLite then fails the commit with
// SQLITE_FULL exactly where a real ENOSPC would fail it. The API answers every write 503 ServiceUnavailable,
// reads keep working, nothing is corrupted, and writes succeed again once space returns. Then the same
// database behind a read-only connection (query_only, and a connection opened read-only) must do the same.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildServer, type ApiServer } from '../../../src/api/build-server.js';
import { systemClock } from '../../../src/core/clock.js';
import { systemRandom } from '../../../src/core/random.js';
import { openSqliteStore, SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { DrillLog, elapsedSince, type DrillResult } from './drill-result.js';

export interface DiskFullOptions {
  /** A scratch directory the drill may write into. */
  dir: string;
  /** Nodes written before the disk fills. */
  seedNodes: number;
  /** Pages allowed above the seeded size before SQLite reports SQLITE_FULL. */
  headroomPages: number;
  /** Writes of every kind attempted while the disk is full (each must be refused). */
  writesWhileFull: number;
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

type Inject = (method: string, url: string, payload?: unknown) => Promise<Reply>;

function injector(api: ApiServer): Inject {
  return async (method, url, payload) => {
    const res = await api.app.inject({
      method: method as 'GET',
      url,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    const json = String(res.headers['content-type'] ?? '').includes('json');
    return {
      status: res.statusCode,
      body: json ? (JSON.parse(res.body) as Record<string, unknown>) : { text: res.body },
    };
  };
}

const rvOf = (body: Record<string, unknown>): string =>
  (body['metadata'] as { resourceVersion: string }).resourceVersion;

/** A node body with a 4 KiB annotation, so each create needs a fresh page or two. */
function nodeBody(name: string): unknown {
  return { metadata: { name, annotations: { 'drill.shepherd.io/ballast': 'x'.repeat(4096) } }, spec: {} };
}

function isUnavailableStatus(r: Reply): boolean {
  return (
    r.status === 503 &&
    r.body['kind'] === 'Status' &&
    r.body['reason'] === 'ServiceUnavailable' &&
    r.body['code'] === 503
  );
}

async function newServer(store: SqliteStore): Promise<{ api: ApiServer; call: Inject }> {
  const api = await buildServer({
    store,
    clock: systemClock,
    random: systemRandom,
    log: false,
    version: '0.0.0-drill',
  });
  return { api, call: injector(api) };
}

/** Name → acknowledged resourceVersion of every node that should exist. */
type Acked = Map<string, string>;

async function expectAckedReadable(call: Inject, acked: Acked, log: DrillLog, when: string): Promise<void> {
  const list = await call('GET', '/api/v1/nodes');
  if (!log.check(list.status === 200, `${when}: listing nodes answered ${list.status}, not 200`)) return;
  const items = new Map(
    (list.body['items'] as { metadata: { name: string; resourceVersion: string } }[]).map((n) => [
      n.metadata.name,
      n.metadata.resourceVersion,
    ]),
  );
  for (const [name, rv] of acked)
    log.check(
      items.get(name) === rv,
      `${when}: acknowledged node ${name}@${rv} reads as ${items.get(name) ?? 'missing'}`,
    );
  log.check(items.size === acked.size, `${when}: ${items.size} nodes listed, ${acked.size} acknowledged`);
  const first = acked.keys().next().value;
  if (first !== undefined)
    log.check((await call('GET', `/api/v1/nodes/${first}`)).status === 200, `${when}: GET of node ${first} failed`);
}

function integrity(db: Database.Database): string {
  return String(db.pragma('integrity_check', { simple: true }));
}

/** Writes `body` objects until one is refused; returns that reply (undefined if `limit` writes all fit). */
async function fillUp(
  call: Inject,
  url: string,
  body: (i: number) => unknown,
  limit: number,
  onAck: (r: Reply) => void,
): Promise<Reply | undefined> {
  for (let i = 0; i < limit; i++) {
    const r = await call('POST', url, body(i));
    if (r.status !== 201) return r;
    onAck(r);
  }
  return undefined;
}

function leaseBody(name: string): unknown {
  return {
    metadata: { name },
    spec: { holderIdentity: 'drill', leaseDurationSeconds: 40, renewTime: new Date().toISOString() },
  };
}

/**
 * Every kind of write while full. A write that still fits (an update rewriting a page in place, a create
 * landing on pages a delete just freed) may succeed, as on a real full disk; every other must be a 503
 * Status that changed nothing. The acknowledged state follows what succeeded.
 */
async function writesWhileFull(
  store: SqliteStore,
  call: Inject,
  acked: Acked,
  n: number,
  log: DrillLog,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    const victim = [...acked.keys()][i % acked.size] as string;
    const attempts: [string, string, unknown][] = [
      ['POST', '/api/v1/nodes', nodeBody(`while-full-${i}`)],
      [
        'PUT',
        `/api/v1/nodes/${victim}`,
        { metadata: { name: victim, resourceVersion: acked.get(victim), labels: { full: 'yes' } }, spec: {} },
      ],
      ['POST', '/api/v1/leases', leaseBody(`while-full-${i}`)],
      ['DELETE', `/api/v1/nodes/${victim}`, undefined],
    ];
    for (const [method, url, body] of attempts) {
      const before = await store.currentRevision();
      const r = await call(method, url, body);
      if (r.status >= 200 && r.status < 300) {
        log.add('acceptedWhileFull');
        if (method === 'DELETE') acked.delete(victim);
        else if (url.startsWith('/api/v1/nodes'))
          acked.set(String((r.body['metadata'] as { name: string }).name), rvOf(r.body));
        continue;
      }
      if (
        !log.check(
          isUnavailableStatus(r),
          `while full: ${method} ${url} answered ${r.status} ${JSON.stringify(r.body).slice(0, 200)}, not a 503 Status`,
        )
      )
        continue;
      log.add('refusedWhileFull');
      log.check(
        (await store.currentRevision()) === before,
        `while full: the refused ${method} ${url} moved the store revision`,
      );
    }
    if (!acked.has(`while-full-${i}`)) {
      log.check(
        (await call('GET', `/api/v1/nodes/while-full-${i}`)).status === 404,
        `while full: the refused create of while-full-${i} left an object behind`,
      );
    }
  }
}

async function diskFullPhase(path: string, o: DiskFullOptions, log: DrillLog): Promise<Acked> {
  const store = await openSqliteStore({ path });
  const { api, call } = await newServer(store);
  const acked: Acked = new Map();
  try {
    for (let i = 0; i < o.seedNodes; i++) {
      const r = await call('POST', '/api/v1/nodes', nodeBody(`seed-${i}`));
      if (log.check(r.status === 201, `seeding node seed-${i} answered ${r.status}`))
        acked.set(`seed-${i}`, rvOf(r.body));
    }
    const db = store.database;
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + o.headroomPages}`);
    log.set('pageLimit', pages + o.headroomPages);
    // Big objects first, then small ones into what is left, so little but in-place rewrites still fits.
    const onNode = (r: Reply): void => {
      acked.set(String((r.body['metadata'] as { name: string }).name), rvOf(r.body));
      log.add('acceptedBeforeFull');
    };
    const refused = await fillUp(call, '/api/v1/nodes', (i) => nodeBody(`fill-${i}`), 100_000, onNode);
    if (
      !log.check(
        refused !== undefined && isUnavailableStatus(refused),
        `filling the disk ended with ${JSON.stringify(refused)}, not a 503 Status`,
      )
    )
      return acked;
    log.set('fullMessage', String(refused?.body['message']));
    const leaseRefused = await fillUp(
      call,
      '/api/v1/leases',
      (i) => leaseBody(`fill-${i}`),
      100_000,
      () => log.add('leasesBeforeFull'),
    );
    log.check(
      leaseRefused !== undefined && isUnavailableStatus(leaseRefused),
      `filling with leases ended with ${JSON.stringify(leaseRefused)}`,
    );
    await writesWhileFull(store, call, acked, o.writesWhileFull, log);
    await expectAckedReadable(call, acked, log, 'while full');
    log.check((await call('GET', '/readyz')).status === 200, 'while full: /readyz is not 200 although reads work');
    log.check(integrity(db) === 'ok', `while full: integrity_check says ${integrity(db)}`);

    // Space returns (an operator frees disk): the very next write must succeed, no restart needed.
    db.pragma('max_page_count = 4294967294');
    for (let i = 0; i < 10; i++) {
      const r = await call('POST', '/api/v1/nodes', nodeBody(`after-full-${i}`));
      if (
        log.check(
          r.status === 201,
          `after space returned: create answered ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`,
        )
      ) {
        acked.set(`after-full-${i}`, rvOf(r.body));
        log.add('acceptedAfterSpaceReturned');
      }
    }
    await expectAckedReadable(call, acked, log, 'after space returned');
  } finally {
    await api.app.close();
    await store.close();
  }
  return acked;
}

/** query_only (a read-only connection in SQLite's own terms): writes 503, reads fine, and back. */
async function queryOnlyPhase(path: string, acked: Acked, log: DrillLog): Promise<void> {
  const store = await openSqliteStore({ path });
  const { api, call } = await newServer(store);
  try {
    await expectAckedReadable(call, acked, log, 'reopened after the disk-full phase');
    log.check(integrity(store.database) === 'ok', 'reopened: integrity_check is not ok');
    store.database.pragma('query_only = 1');
    const r = await call('POST', '/api/v1/nodes', nodeBody('query-only'));
    log.check(isUnavailableStatus(r), `query_only: create answered ${r.status}, not a 503 Status`);
    await expectAckedReadable(call, acked, log, 'query_only');
    store.database.pragma('query_only = 0');
    const again = await call('POST', '/api/v1/nodes', nodeBody('query-only'));
    if (log.check(again.status === 201, `query_only lifted: create answered ${again.status}`))
      acked.set('query-only', rvOf(again.body));
  } finally {
    await api.app.close();
    await store.close();
  }
}

/** The database file opened by a read-only connection (SQLITE_OPEN_READONLY, as on a read-only mount). */
async function readOnlyFilePhase(path: string, acked: Acked, log: DrillLog): Promise<void> {
  const store = new SqliteStore(new Database(path, { readonly: true, fileMustExist: true }), { path });
  const { api, call } = await newServer(store);
  try {
    const r = await call('POST', '/api/v1/nodes', nodeBody('read-only'));
    log.check(isUnavailableStatus(r), `read-only file: create answered ${r.status}, not a 503 Status`);
    const first = [...acked.keys()].sort()[0] as string;
    const put = await call('PUT', `/api/v1/nodes/${first}`, {
      metadata: { name: first, resourceVersion: acked.get(first) },
      spec: { unschedulable: true },
    });
    log.check(isUnavailableStatus(put), `read-only file: update answered ${put.status}, not a 503 Status`);
    if (isUnavailableStatus(r) && isUnavailableStatus(put)) log.add('refusedReadOnly', 2);
    await expectAckedReadable(call, acked, log, 'read-only file');
  } finally {
    await api.app.close();
    await store.close();
  }
  const check = new Database(path, { readonly: true });
  try {
    log.check(integrity(check) === 'ok', 'after the read-only phase: integrity_check is not ok');
  } finally {
    check.close();
  }
}

export async function runDiskFullDrill(o: DiskFullOptions): Promise<DrillResult> {
  const started = performance.now();
  const log = new DrillLog();
  const path = join(o.dir, 'disk-full.db');
  const acked = await diskFullPhase(path, o, log);
  await queryOnlyPhase(path, acked, log);
  await readOnlyFilePhase(path, acked, log);
  log.set('ackedNodes', acked.size);
  return {
    drill: '6 disk full and read-only database',
    settings: { ...o, dir: '(temp)' },
    counts: log.counts,
    problems: log.problems,
    durationMs: elapsedSince(started),
  };
}
