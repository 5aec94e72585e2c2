// The floor for a durable renewal on this stack: the no-op fastify PUT route (bench/noop-server.ts) plus the least a
// durable, optimistically-locked write can do on SQLite — compare the resourceVersion against an in-memory map, one
// UPDATE of the stored JSON per write, every write of an event-loop turn in one transaction committed with
// `synchronous = FULL` in WAL mode (as src/store/sqlite/database.ts and group-commit.ts do), answered after COMMIT.
// No change log, no watches, no caches beyond the map, no validation beyond the version check: what shepherd's
// store adds on top is what its ratio to this server measures. Prints "listening on URL" like the real server.
//   node --import tsx bench/durable-floor-server.ts --db FILE [--leases 1000] [--sync commit|pool|none]
// --sync: where the fsync happens. commit (default): inside COMMIT, on the event loop (`synchronous = FULL`, as
// shepherd does). pool: COMMIT at `synchronous = NORMAL`, then fdatasync of the WAL file on libuv's thread pool, each
// batch answered once a sync begun after its commit has finished (as shepherd's reverted b7c0bc9 did). none: no
// fsync at all, answered after COMMIT: not durable, the bound set by CPU alone.
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { fdatasync, openSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    leases: { type: 'string', default: '1000' },
    sync: { type: 'string', default: 'commit' },
  },
});
const dbPath = values.db;
if (dbPath === undefined) throw new Error('--db FILE is required');
const sync = values.sync;
if (sync !== 'commit' && sync !== 'pool' && sync !== 'none') throw new Error('--sync must be commit, pool or none');

const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
db.pragma(sync === 'commit' ? 'synchronous = FULL' : 'synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, rv INTEGER NOT NULL, body TEXT NOT NULL)');
const update = db.prepare('UPDATE leases SET rv = ?, body = ? WHERE name = ?');
const insert = db.prepare('INSERT OR REPLACE INTO leases (name, rv, body) VALUES (?, 1, ?)');
const versions = new Map<string, number>();
db.transaction(() => {
  for (let i = 0; i < Number(values.leases); i++) {
    const name = `bench-node-${i}`;
    insert.run(name, '{}');
    versions.set(name, 1);
  }
})();

interface Pending {
  name: string;
  rv: number;
  body: string;
  done: () => void;
}
let revision = 1;
let queue: Pending[] = [];
let scheduled = false;
const commit = db.transaction((batch: Pending[]) => {
  for (const w of batch) update.run(w.rv, w.body, w.name);
});
// --sync pool: batches committed and waiting for a sync; the sync in flight covers the batches committed before it.
let unsynced: Pending[] = [];
let syncing = false;
let walFd: number | undefined;
function syncWal(): void {
  syncing = true;
  const covered = unsynced;
  unsynced = [];
  walFd ??= openSync(`${dbPath}-wal`, 'r+');
  fdatasync(walFd, (err) => {
    if (err) throw err;
    syncing = false;
    for (const w of covered) w.done();
    if (unsynced.length > 0) syncWal();
  });
}
function flush(): void {
  scheduled = false;
  const batch = queue;
  queue = [];
  commit(batch);
  if (sync !== 'pool') {
    for (const w of batch) w.done();
    return;
  }
  for (const w of batch) unsynced.push(w);
  if (!syncing) syncWal();
}

const app = Fastify({ logger: false });
app.put('/api/v1/leases/:name', async (req, reply) => {
  const { name } = req.params as { name: string };
  const body = req.body as { metadata: Record<string, unknown> };
  const held = versions.get(name);
  if (held === undefined) return reply.code(404).send({ kind: 'Status', reason: 'NotFound' });
  if (String(held) !== body.metadata.resourceVersion)
    return reply.code(409).send({ kind: 'Status', reason: 'Conflict' });
  const rv = ++revision;
  versions.set(name, rv);
  const stored = { ...body, metadata: { ...body.metadata, resourceVersion: String(rv) } };
  await new Promise<void>((done) => {
    queue.push({ name, rv, body: JSON.stringify(stored), done });
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  return stored;
});
const addr = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`durable floor server listening on ${addr}\n`);
for (const sig of ['SIGTERM', 'SIGINT'] as const)
  process.on(sig, () => void app.close().then(() => (db.close(), process.exit(0))));
