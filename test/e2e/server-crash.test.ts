import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { eventually } from '../support/eventually.js';
import { startServer, type ServerProc, tempDir } from '../support/processes.js';

// End to end: a 2xx answer means the write is durable. Writers hammer the real server (nodes, leases,
// events) while watches stream; the server is SIGKILLed mid-stream and restarted on the same port and DB.
// Every acknowledged write must be there, and a watch resumed from the last resourceVersion the watcher saw
// (and one from an older revision) must deliver the rest in order, none twice, agreeing with the final list.

type Resource = 'nodes' | 'leases' | 'events';
const RESOURCES: Resource[] = ['nodes', 'leases', 'events'];
const WRITERS = 6;
const ACKS_BEFORE_KILL = 400;

interface Obj {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  [k: string]: unknown;
}
interface Ack {
  resource: Resource;
  name: string;
  op: 'create' | 'update' | 'status' | 'delete';
  rv: number;
  writer: number;
  obj: Obj;
}
interface Seen {
  type: string;
  name: string;
  rv: number;
}

const http = new Agent({ keepAliveTimeout: 10_000 });

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await request(`${base}${path}`, {
    method: method as 'GET',
    dispatcher: http,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  const json = String(res.headers['content-type'] ?? '').includes('json');
  return { status: res.statusCode, body: text === '' ? undefined : json ? JSON.parse(text) : text };
}

const rvOf = (o: { metadata: { resourceVersion: string } }): number => Number(o.metadata.resourceVersion);
const pathOf = (r: Resource, name: string): string => `/api/v1/${r}/${name}`;

/** An open NDJSON watch; `events` grows as lines arrive, `done` settles when the stream ends or breaks. */
interface OpenWatch {
  events: Seen[];
  lastSeen: number;
  done: Promise<void>;
  close(): void;
}

async function openWatch(base: string, resource: Resource, from: number): Promise<OpenWatch> {
  const ac = new AbortController();
  const res = await request(`${base}/api/v1/${resource}?watch=true&resourceVersion=${from}&allowWatchBookmarks=true`, {
    dispatcher: http,
    signal: ac.signal,
    headersTimeout: 10_000,
    bodyTimeout: 0,
  });
  assert.equal(res.statusCode, 200, `watch ${resource} from ${from}`);
  assert.match(String(res.headers['content-type']), /application\/x-ndjson/);
  const w: OpenWatch = { events: [], lastSeen: from, done: Promise.resolve(), close: () => ac.abort() };
  w.done = (async () => {
    let pending = '';
    try {
      for await (const chunk of res.body) {
        pending += (chunk as Buffer).toString('utf8');
        for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
          const line = pending.slice(0, nl).trim();
          pending = pending.slice(nl + 1);
          if (line === '') continue;
          const ev = JSON.parse(line) as { type: string; object: Obj };
          assert.notEqual(ev.type, 'ERROR', `watch ${resource} from ${from} sent ${line}`);
          w.lastSeen = rvOf(ev.object);
          w.events.push({ type: ev.type, name: ev.object.metadata.name, rv: rvOf(ev.object) });
        }
      }
    } catch (err) {
      // The SIGKILL (or our own abort) breaks the stream: that is the point of the test.
      if (!ac.signal.aborted && !/socket|closed|terminated|ECONNRESET|other side/i.test(String(err))) throw err;
    }
  })();
  return w;
}

/** Resumes from `from` and collects until a BOOKMARK at or past `until` says the watcher has caught up. */
async function watchUntilCaughtUp(base: string, resource: Resource, from: number, until: number): Promise<Seen[]> {
  const w = await openWatch(base, resource, from);
  try {
    await eventually(() => w.events.some((e) => e.type === 'BOOKMARK' && e.rv >= until), {
      what: `${resource} watch from ${from} to reach a bookmark at ${until}`,
      timeoutMs: 10_000,
      intervalMs: 50,
    });
  } finally {
    w.close();
    await w.done;
  }
  return w.events.filter((e) => e.type !== 'BOOKMARK');
}

class Writers {
  readonly acks: Ack[] = [];
  readonly unexpected: string[] = [];
  /** Keys a delete was sent for, acknowledged or not (an unacknowledged delete may still have committed). */
  readonly deleteSent = new Set<string>();

  constructor(readonly base: string) {}

  /** One write; false when the connection broke (the server is gone), which ends that writer. */
  async #write(
    w: number,
    resource: Resource,
    name: string,
    op: Ack['op'],
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Obj | false> {
    let res: { status: number; body: unknown };
    try {
      res = await call(this.base, method, path, body);
    } catch {
      return false;
    }
    if (res.status < 200 || res.status > 299) {
      this.unexpected.push(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
      return false;
    }
    const obj = res.body as Obj;
    this.acks.push({ resource, name, op, rv: rvOf(obj), writer: w, obj });
    return obj;
  }

  async run(w: number): Promise<void> {
    for (let k = 0; ; k++) {
      const name = `w${w}-${k}`;
      const now = (): string => new Date().toISOString();
      const labels = { writer: `w${w}`, step: '0' };
      let node = await this.#write(w, 'nodes', name, 'create', 'POST', '/api/v1/nodes', {
        metadata: { name, labels },
        spec: {},
      });
      if (!node) return;
      node = await this.#write(w, 'nodes', name, 'update', 'PUT', pathOf('nodes', name), {
        ...node,
        metadata: { ...node.metadata, labels: { ...labels, step: '1' } },
      });
      if (!node) return;
      const ready = {
        type: 'Ready',
        status: 'True',
        reason: 'E2E',
        message: 'ok',
        lastHeartbeatTime: now(),
        lastTransitionTime: now(),
      };
      node = await this.#write(w, 'nodes', name, 'status', 'PUT', `${pathOf('nodes', name)}/status`, {
        ...node,
        status: { conditions: [ready] },
      });
      if (!node) return;
      let lease = await this.#write(w, 'leases', name, 'create', 'POST', '/api/v1/leases', {
        metadata: { name },
        spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: now() },
      });
      if (!lease) return;
      lease = await this.#write(w, 'leases', name, 'update', 'PUT', pathOf('leases', name), {
        ...lease,
        spec: { ...(lease['spec'] as object), renewTime: now() },
      });
      if (!lease) return;
      const event = {
        metadata: { name: `${name}.step` },
        type: 'Normal',
        reason: 'E2EStep',
        message: `step ${k} of writer ${w}`,
        involvedObject: { kind: 'Node', name },
        source: { component: 'e2e' },
      };
      if (!(await this.#write(w, 'events', `${name}.step`, 'create', 'POST', '/api/v1/events', event))) return;
      if (k % 3 === 2) {
        // Deleting a node deletes its lease too (docs/api.md).
        this.deleteSent.add(`nodes/${name}`).add(`leases/${name}`);
        if (!(await this.#write(w, 'nodes', name, 'delete', 'DELETE', pathOf('nodes', name)))) return;
      }
    }
  }
}

/** The acknowledged state per key: the last acknowledged op (each key is written by one writer, in order). */
function lastAcked(acks: Ack[]): Map<string, Ack> {
  const last = new Map<string, Ack>();
  for (const a of acks) {
    last.set(`${a.resource}/${a.name}`, a);
    // A node delete removes its lease in the same write.
    if (a.resource === 'nodes' && a.op === 'delete') last.set(`leases/${a.name}`, { ...a, resource: 'leases' });
  }
  return last;
}

describe('server crash: acknowledged writes survive SIGKILL and watches resume', { timeout: 90_000 }, () => {
  const dir = tempDir();
  const db = `${dir.path}/db.sqlite`;
  let server: ServerProc | undefined;

  after(async () => {
    // Our keep-alive connections first: a server's SIGTERM shutdown waits on a connection that never sent a
    // request (undici opens spare ones), which would cost this test the 10 s SIGKILL fallback.
    await http.close();
    await server?.stop();
    dir.cleanup();
  });

  test('every 2xx write is durable and the watch resumes in order after a restart', async () => {
    server = await startServer(['--db', db, '--no-controller', '--log-level', 'warn']);
    const { url: base, port } = server;
    const start = (await call(base, 'GET', '/api/v1/nodes')).body as { metadata: { resourceVersion: string } };
    const from = Number(start.metadata.resourceVersion);
    const watches = new Map<Resource, OpenWatch>();
    for (const r of RESOURCES) watches.set(r, await openWatch(base, r, from));

    const writers = new Writers(base);
    const running = Array.from({ length: WRITERS }, (_, w) => writers.run(w));
    await eventually(() => writers.acks.length >= ACKS_BEFORE_KILL || writers.unexpected.length > 0, {
      what: `${ACKS_BEFORE_KILL} acknowledged writes`,
      timeoutMs: 30_000,
      intervalMs: 5,
    });
    const watchedBeforeKill = [...watches.values()].reduce((n, w) => n + w.events.length, 0);
    server.signal('SIGKILL');
    await server.exited;
    await Promise.all(running);
    for (const w of watches.values()) await w.done;
    assert.deepEqual(writers.unexpected, [], 'no write was refused before the kill');
    assert.ok(watchedBeforeKill > 0, 'the watches were streaming when the server was killed');

    // Restart on the same port and the same database.
    server = await startServer(['--listen', `127.0.0.1:${port}`, '--db', db, '--no-controller', '--log-level', 'warn']);
    assert.equal(server.port, port);
    assert.equal((await call(base, 'GET', '/readyz')).status, 200);
    const version = await call(base, 'GET', '/version');
    assert.equal(version.status, 200);
    assert.equal((version.body as { storage: string }).storage, 'sqlite');
    assert.match((version.body as { version: string }).version, /^\d+\.\d+\.\d+/);

    checkRevisions(writers.acks);
    await checkAcknowledgedState(base, writers);
    await checkWatches(base, writers.acks, watches);
  });
});

/** One global counter: acknowledged revisions never repeat, and each writer's own writes only go up. */
function checkRevisions(acks: Ack[]): void {
  const writes = acks.filter((a) => a.op !== 'delete');
  assert.equal(
    new Set(writes.map((a) => a.rv)).size,
    writes.length,
    'no two acknowledged writes share a resourceVersion',
  );
  for (let w = 0; w < WRITERS; w++) {
    const rvs = writes.filter((a) => a.writer === w).map((a) => a.rv);
    for (let i = 1; i < rvs.length; i++)
      assert.ok((rvs[i] as number) > (rvs[i - 1] as number), `writer ${w}: ${rvs[i - 1]} then ${rvs[i]}`);
  }
}

async function checkAcknowledgedState(base: string, writers: Writers): Promise<void> {
  for (const [key, ack] of lastAcked(writers.acks)) {
    const [resource, name] = key.split('/') as [Resource, string];
    const got = await call(base, 'GET', pathOf(resource, name));
    if (ack.op === 'delete') {
      assert.equal(got.status, 404, `${key}: its delete was acknowledged`);
      continue;
    }
    if (got.status === 404) {
      // Only an in-flight (unacknowledged) delete may have removed it.
      assert.ok(writers.deleteSent.has(key), `${key}: acknowledged at ${ack.rv} but gone`);
      continue;
    }
    assert.equal(got.status, 200, key);
    const obj = got.body as Obj;
    assert.ok(rvOf(obj) >= ack.rv, `${key}: acknowledged at ${ack.rv}, stored at ${obj.metadata.resourceVersion}`);
    if (rvOf(obj) === ack.rv) assert.deepEqual(obj, ack.obj, `${key}: stored object equals the acknowledged answer`);
  }
}

async function checkWatches(base: string, acks: Ack[], watches: Map<Resource, OpenWatch>): Promise<void> {
  const listed = new Map<Resource, { rv: number; items: Obj[] }>();
  for (const r of RESOURCES) {
    const list = (await call(base, 'GET', `/api/v1/${r}`)).body as {
      metadata: { resourceVersion: string };
      items: Obj[];
    };
    listed.set(r, { rv: Number(list.metadata.resourceVersion), items: list.items });
  }
  const current = Math.max(...[...listed.values()].map((l) => l.rv));
  for (const r of RESOURCES) {
    const before = (watches.get(r) as OpenWatch).events.filter((e) => e.type !== 'BOOKMARK');
    const resumed = await watchUntilCaughtUp(base, r, (watches.get(r) as OpenWatch).lastSeen, current);
    const all = [...before, ...resumed];
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1] as Seen, all[i] as Seen];
      assert.ok(
        b.rv > a.rv,
        `${r} watch: ${a.type} ${a.name}@${a.rv} then ${b.type} ${b.name}@${b.rv} (order, none twice)`,
      );
    }
    const seen = new Set(
      all.map((e) => `${e.type === 'DELETED' ? 'D' : 'W'}/${e.name}/${e.type === 'DELETED' ? '' : e.rv}`),
    );
    for (const a of acks.filter((x) => x.resource === r)) {
      const key = a.op === 'delete' ? `D/${a.name}/` : `W/${a.name}/${a.rv}`;
      assert.ok(seen.has(key), `${r} watch delivered the acknowledged ${a.op} of ${a.name} at ${a.rv}`);
    }
    // Replaying the watch from the start revision gives exactly the final list.
    const replay = new Map<string, number>();
    for (const e of all) {
      if (e.type === 'DELETED') replay.delete(e.name);
      else replay.set(e.name, e.rv);
    }
    const final = new Map((listed.get(r) as { items: Obj[] }).items.map((o) => [o.metadata.name, rvOf(o)] as const));
    assert.deepEqual(
      new Map([...replay].sort()),
      new Map([...final].sort()),
      `${r}: watch replay equals the list after restart`,
    );

    // A watch resumed from an older revision (the change log survived the crash) replays the same changes.
    const mid = (all[Math.floor(all.length / 2)] as Seen).rv;
    const fromMid = await watchUntilCaughtUp(base, r, mid, current);
    assert.deepEqual(
      fromMid,
      all.filter((e) => e.rv > mid),
      `${r}: watch from ${mid} after restart`,
    );
  }
}
