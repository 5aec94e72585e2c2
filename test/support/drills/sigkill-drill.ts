// Drill 1 (RELIABILITY.md): SIGKILL under load, N cycles, real processes on loopback. A fleet renews (real agents,
// and optionally the fleet simulator) while a writer creates and updates nodes, recording every 2xx; the
// server is SIGKILLed and restarted on the same port and database. After each kill: `PRAGMA integrity_check`
// is ok and every acknowledged write is in the file (read-only connection, server down); after each restart
// the agents carry on (same PIDs, renewTime advancing) and the watchers resume. At the end every watcher has
// seen every acknowledged change exactly once, in order, without relisting.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { HttpApiClient } from '../../../src/client/http-client.js';
import type { Lease } from '../../../src/core/lease.js';
import { eventually } from '../eventually.js';
import { SHEPHERD_BIN, startProcess, type Proc, type ServerProc } from '../processes.js';
import { DrillLog, elapsedSince, type DrillResult } from './drill-result.js';
import { ResumingWatcher } from './resuming-watcher.js';

export interface SigkillOptions {
  dir: string;
  cycles: number;
  /** Real agent processes (lease duration 2 s: a renewal every 500 ms). */
  agents: number;
  /** Nodes of a `--mode fleet` simulator process; 0 for none. */
  fleetNodes?: number;
  /** Load time before each kill. */
  loadMs: number;
  /** Concurrent writers. */
  writers?: number;
}

interface Ack {
  name: string;
  rv: number;
  type: 'ADDED' | 'MODIFIED';
}

interface Written {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

const http = (): Agent => new Agent({ keepAliveTimeout: 10_000, connections: 16 });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Creates `wr-<w>-<k>` and relabels it twice, forever; a failed request abandons that node (its state is unknown). */
class Writer {
  readonly acks: Ack[] = [];
  readonly refused: string[] = [];
  #stopped = false;
  readonly #dispatcher = http();

  constructor(public base: string) {}

  async #send(method: 'POST' | 'PUT', path: string, body: unknown): Promise<Written | undefined> {
    try {
      const res = await request(`${this.base}${path}`, {
        method,
        dispatcher: this.#dispatcher,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
      });
      const text = await res.body.text();
      if (res.statusCode >= 200 && res.statusCode < 300) return JSON.parse(text) as Written;
      this.refused.push(`${method} ${path} → ${res.statusCode} ${text.slice(0, 200)}`);
    } catch {
      // The server died under us: whether this write committed is unknown, so it is not an acknowledgement.
      await sleep(50);
    }
    return undefined;
  }

  async run(w: number): Promise<void> {
    for (let k = 0; !this.#stopped; k++) {
      const name = `wr-${w}-${k}`;
      let obj = await this.#send('POST', '/api/v1/nodes', { metadata: { name, labels: { step: '0' } }, spec: {} });
      if (!obj) continue;
      this.acks.push({ name, rv: Number(obj.metadata.resourceVersion), type: 'ADDED' });
      for (let step = 1; step <= 2 && obj && !this.#stopped; step++) {
        obj = await this.#send('PUT', `/api/v1/nodes/${name}`, {
          ...obj,
          metadata: { ...obj.metadata, labels: { step: String(step) } },
        });
        if (obj) this.acks.push({ name, rv: Number(obj.metadata.resourceVersion), type: 'MODIFIED' });
      }
    }
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#dispatcher.close();
  }
}

/** With the server down: the file is sound and holds every acknowledged write (at that or a later version). */
function checkFile(path: string, acks: Ack[], log: DrillLog, cycle: number): void {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const ok = String(db.pragma('integrity_check', { simple: true }));
    log.check(ok === 'ok', `cycle ${cycle}: integrity_check after SIGKILL says ${ok}`);
    const rows = db
      .prepare<[], { key: string; revision: number }>("SELECT key, revision FROM objects WHERE kind = 'nodes'")
      .all();
    const stored = new Map(rows.map((r) => [r.key, r.revision]));
    const latest = new Map<string, number>();
    for (const a of acks) latest.set(a.name, Math.max(a.rv, latest.get(a.name) ?? 0));
    let missing = 0;
    for (const [name, rv] of latest) {
      if (
        (stored.get(name) ?? -1) < rv &&
        log.check(
          false,
          `cycle ${cycle}: acknowledged ${name}@${rv} is ${stored.has(name) ? `at ${stored.get(name)}` : 'missing'} in the file`,
        )
      )
        missing++;
    }
    log.add('ackedWritesCheckedInFile', latest.size);
    log.check(missing === 0, `cycle ${cycle}: ${missing} acknowledged writes lost`);
  } finally {
    db.close();
  }
}

async function leaseRenewTimes(client: HttpApiClient): Promise<Map<string, string>> {
  return new Map((await client.leases().list()).items.map((l: Lease) => [l.metadata.name, l.spec.renewTime] as const));
}

/** Every lease that was renewing before the kill renews again after the restart, from the same agent processes. */
async function checkFleetCarriesOn(
  client: HttpApiClient,
  before: Map<string, string>,
  procs: Proc[],
  pids: number[],
  log: DrillLog,
  cycle: number,
): Promise<void> {
  procs.forEach((p, i) =>
    log.check(
      p.child.exitCode === null && p.child.signalCode === null && p.child.pid === pids[i],
      `cycle ${cycle}: ${p.name} (pid ${pids[i]}) exited or restarted`,
    ),
  );
  try {
    await eventually(
      async () => {
        const now = await leaseRenewTimes(client);
        return [...before].every(([name, t]) => Date.parse(now.get(name) ?? '') > Date.parse(t));
      },
      { what: 'every lease renewed after the restart', timeoutMs: 30_000, intervalMs: 200 },
    );
    log.add('leaseRenewalsResumed', before.size);
  } catch (err) {
    log.check(false, `cycle ${cycle}: ${String(err)}`);
  }
}

async function startFleet(server: ServerProc, o: SigkillOptions): Promise<Proc[]> {
  const procs: Proc[] = [];
  for (let i = 0; i < o.agents; i++) {
    const name = `agent-${i}`;
    procs.push(
      startProcess(
        SHEPHERD_BIN,
        [
          '--mode',
          'agent',
          '--node-name',
          name,
          '--api-addr',
          server.addr,
          '--lease-duration',
          '2s',
          '--log-level',
          'warn',
        ],
        { name },
      ),
    );
  }
  if ((o.fleetNodes ?? 0) > 0) {
    const args = [
      '--mode',
      'fleet',
      '--nodes',
      String(o.fleetNodes),
      '--api-addr',
      server.addr,
      '--lease-duration',
      '2s',
      '--log-level',
      'warn',
    ];
    procs.push(startProcess(SHEPHERD_BIN, args, { name: 'fleet' }));
  }
  return procs;
}

const LISTENING = /listening on (https?:\/\/[^\s]+)/;

/** startServer with a start-up allowance for a busy shared machine (the helper's 15 s is tight under load). */
async function startServer(args: string[], timeoutMs = 60_000): Promise<ServerProc> {
  const p = startProcess(
    SHEPHERD_BIN,
    ['--mode', 'server', ...(args.includes('--listen') ? args : ['--listen', '127.0.0.1:0', ...args])],
    { name: 'server' },
  );
  try {
    const url = (LISTENING.exec(await p.waitForLine(LISTENING, timeoutMs)) as RegExpExecArray)[1] as string;
    const port = Number(new URL(url).port);
    return Object.assign(p, { url, port, addr: `127.0.0.1:${port}` });
  } catch (err) {
    await p.stop('SIGKILL');
    throw err;
  }
}

export async function runSigkillDrill(o: SigkillOptions): Promise<DrillResult> {
  const started = performance.now();
  const log = new DrillLog();
  const db = join(o.dir, 'sigkill.db');
  const serverArgs = ['--db', db, '--no-controller', '--log-level', 'warn'];
  let server = await startServer(serverArgs);
  const client = new HttpApiClient({ addresses: [server.addr], retry: { initialBackoffMs: 50, maxBackoffMs: 500 } });
  const procs = await startFleet(server, o);
  const writer = new Writer(server.url.replace(/\/$/, ''));
  const watchers: ResumingWatcher[] = [];
  let running: Promise<void>[] = [];
  try {
    const expectedLeases = o.agents + (o.fleetNodes ?? 0);
    await eventually(async () => (await client.leases().list()).items.length >= expectedLeases, {
      what: `${expectedLeases} leases`,
      timeoutMs: 90_000,
    }).catch((err: unknown) => {
      const exited = procs.filter((p) => p.child.exitCode !== null || p.child.signalCode !== null);
      throw new Error(
        `${String(err)}; exited: ${exited.map((p) => `${p.name}: ${p.text.slice(-500)}`).join(' | ') || 'none'}`,
      );
    });
    const pids = procs.map((p) => p.child.pid as number);
    for (const kind of ['nodes', 'leases'] as const) {
      const list = kind === 'nodes' ? await client.nodes.list() : await client.leases().list();
      watchers.push(new ResumingWatcher(`${kind}-watcher`, server.addr, kind, list));
    }
    running = Array.from({ length: o.writers ?? 3 }, (_, w) => writer.run(w));
    for (let cycle = 1; cycle <= o.cycles; cycle++) {
      await sleep(o.loadMs);
      const renewing = await leaseRenewTimes(client);
      server.signal('SIGKILL');
      await server.exited;
      log.add('kills');
      checkFile(db, [...writer.acks], log, cycle);
      const t0 = performance.now();
      server = await startServer(['--listen', server.addr, ...serverArgs]);
      const restartedAt = Number((await client.nodes.list()).metadata.resourceVersion);
      const t1 = performance.now();
      await checkFleetCarriesOn(client, renewing, procs, pids, log, cycle);
      log.set('maxRestartMs', Math.max(Number(log.counts['maxRestartMs'] ?? 0), Math.round(t1 - t0)));
      log.set(
        'maxLeasesRenewedAfterRestartMs',
        Math.max(Number(log.counts['maxLeasesRenewedAfterRestartMs'] ?? 0), Math.round(performance.now() - t1)),
      );
      const resumed = await reached(() => watchers.every((w) => w.last >= restartedAt), 'watchers resumed', 30_000);
      log.check(
        resumed,
        `cycle ${cycle}: watchers did not resume past ${restartedAt}: ${watchers.map((w) => `${w.name}@${w.last}`).join(', ')}`,
      );
    }
    await writer.stop();
    await Promise.all(running);
    running = [];
    // Quiesce the fleet so the final lists and the watchers' replays are taken at one revision.
    await Promise.all(procs.map((p) => p.stop()));
    await checkWatchers(client, watchers, writer.acks, log);
    log.set('ackedWrites', writer.acks.length);
    log.check(
      writer.refused.length === 0,
      `writes refused with an error status: ${writer.refused.slice(0, 3).join('; ')}`,
    );
  } finally {
    await writer.stop();
    await Promise.allSettled(running);
    await Promise.all(watchers.map((w) => w.stop()));
    await Promise.all(procs.map((p) => p.stop()));
    await client.close();
    await server.stop();
  }
  return {
    drill: '1 SIGKILL under load',
    settings: { ...o, dir: '(temp)' },
    counts: log.counts,
    problems: log.problems,
    durationMs: elapsedSince(started),
  };
}

/** True once cond holds, false if it does not within timeoutMs (the drill records a problem, it does not throw). */
function reached(cond: () => boolean, what: string, timeoutMs: number): Promise<boolean> {
  return eventually(cond, { what, timeoutMs, intervalMs: 50 }).then(
    () => true,
    () => false,
  );
}

/** Exactly once, in order, no relist; the node watcher holds every acknowledged write; replays equal the lists. */
async function checkWatchers(
  client: HttpApiClient,
  watchers: ResumingWatcher[],
  acks: Ack[],
  log: DrillLog,
): Promise<void> {
  const finalRv = Number((await client.nodes.list()).metadata.resourceVersion);
  log.check(
    await reached(() => watchers.every((w) => w.last >= finalRv), 'watchers caught up', 30_000),
    `watchers did not catch up with ${finalRv}`,
  );
  for (const w of watchers) {
    const seen = w.events;
    const outOfOrder = seen.findIndex((e, i) => i > 0 && e.rv <= (seen[i - 1] as { rv: number }).rv);
    log.check(
      outOfOrder === -1,
      `${w.name}: event ${outOfOrder} (${JSON.stringify(seen[outOfOrder])}) is not after the one before it`,
    );
    log.check(w.relists === 0, `${w.name} relisted ${w.relists} times (history should have covered every restart)`);
    log.check(w.error === undefined, `${w.name} failed: ${String(w.error)}`);
    log.add('watchEvents', seen.length);
    log.add('watchResumes', w.resumes);
    const list = w.kind === 'nodes' ? (await client.nodes.list()).items : (await client.leases().list()).items;
    const want = new Map(list.map((o) => [o.metadata.name, Number(o.metadata.resourceVersion)] as const));
    const got = w.replay();
    const differ = [...new Set([...want.keys(), ...got.keys()])].filter((k) => want.get(k) !== got.get(k));
    log.check(
      differ.length === 0,
      `${w.name}: replaying its events does not give the current list: ${differ
        .slice(0, 3)
        .map((k) => `${k} listed@${want.get(k)} replayed@${got.get(k)}`)
        .join(', ')}`,
    );
  }
  const nodeEvents = new Set((watchers[0] as ResumingWatcher).events.map((e) => `${e.type} ${e.name}@${e.rv}`));
  const unseen = acks.filter((a) => !nodeEvents.has(`${a.type} ${a.name}@${a.rv}`));
  log.check(
    unseen.length === 0,
    `the node watcher missed ${unseen.length} acknowledged writes, e.g. ${JSON.stringify(unseen[0])}`,
  );
}
