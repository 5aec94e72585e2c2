// Drill 8 (RELIABILITY.md): the server's memory stays bounded in bytes. A real server (bin/shepherd, its own
// process, so its RSS is its own) gets watchers that never read a byte, then Events of the maximum size the API
// allows, written as fast as it takes them. Each silent watcher must be ended (a 429 ERROR line once its unsent
// changes pass --max-watch-unsent-bytes) instead of holding changes, a watcher that does read must see every Event,
// and the server's resident memory must stay under a fixed bound all along. A list of many nodes (`listNodes`) is
// the third load of the same promise.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  MAX_ANNOTATIONS_BYTES,
  MAX_EVENT_MESSAGE_CHARS,
  MAX_LABELS,
  MAX_REASON_CHARS,
} from '../../../src/core/limits.js';
import { HttpApiClient } from '../../../src/client/http-client.js';
import { watchWithResume } from '../../../src/client/watch-resume.js';
import { eventually } from '../eventually.js';
import { startServer, type ServerProc } from '../processes.js';
import { DrillLog, elapsedSince, type DrillResult } from './drill-result.js';

export interface MemoryBoundOptions {
  dir: string;
  /** Watchers that send their request and never read. */
  silentWatchers: number;
  /** Events of the maximum size, each its own (no folding). */
  events: number;
  /** The server's --max-watch-unsent-bytes, as the flag takes it. */
  maxWatchUnsentBytes: string;
  /** The bound on the server's RSS growth over its idle baseline, in bytes. */
  rssGrowthLimitBytes: number;
  /**
   * Nodes to create and then list in one GET, RSS measured during the list; 0 skips it. The list is read whole
   * today; with paged lists (`limit`/`continue`) this step reads it in pages and is held to the same bound.
   */
  listNodes?: number;
  writers?: number;
  /** Runs the server with this V8 heap limit (--max-old-space-size): memory it must retain beyond it is fatal. */
  heapLimitMiB?: number;
  /**
   * Then runs the same load once more with the byte budget off (4Gi; the 10,000-event count remains): the server
   * must run out of its heap, or the drill could not tell a bounded server from an unbounded one.
   */
  control?: boolean;
}

const MiB = 1024 * 1024;

/** The resident set of a process, from /proc (Linux), in bytes; 0 once the process is gone. */
function rssOf(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0; // exited: the drill reports a dead server by its exit, not by a sampler's crash
  }
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/** Samples a process's RSS every few ms until stopped; keeps the peak. */
class RssSampler {
  peak = 0;
  readonly #timer: NodeJS.Timeout;
  constructor(readonly pid: number) {
    this.#timer = setInterval(() => (this.peak = Math.max(this.peak, rssOf(pid))), 25);
  }
  stop(): number {
    clearInterval(this.#timer);
    this.peak = Math.max(this.peak, rssOf(this.pid));
    return this.peak;
  }
}

/** The largest Event the API accepts: every bounded field at (or near) its limit, unique by name. */
export function maximalEvent(i: number): Record<string, unknown> {
  const tag = String(i).padStart(6, '0');
  const name = `${'e'.repeat(240)}-${tag}`;
  const labels: Record<string, string> = {};
  for (let l = 0; l < MAX_LABELS; l++)
    labels[`drill.shepherd.io/${'k'.repeat(50)}${String(l).padStart(2, '0')}`] = 'v'.repeat(63);
  const key = 'drill.shepherd.io/ballast';
  return {
    metadata: { name, labels, annotations: { [key]: 'a'.repeat(MAX_ANNOTATIONS_BYTES - key.length) } },
    type: 'Warning',
    reason: 'R'.repeat(MAX_REASON_CHARS),
    message: `${tag} ${'m'.repeat(MAX_EVENT_MESSAGE_CHARS - tag.length - 1)}`,
    involvedObject: { kind: 'Node', name: `${'n'.repeat(246)}-${tag}` },
    source: { component: 'c'.repeat(253), host: 'h'.repeat(253) },
  };
}

function silentWatcher(port: number, path: string): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.on('error', () => {});
  socket.write(`GET ${path} HTTP/1.1\r\nHost: drill\r\n\r\n`);
  return socket;
}

/**
 * A watcher that reads everything, as clients do (watchWithResume): when the server cuts it for falling behind
 * under the write burst, it resumes from the last resourceVersion it saw. Counts distinct Events until `want`.
 */
async function readingWatcher(server: ServerProc, rv: string, want: number, signal: AbortSignal): Promise<number> {
  const client = new HttpApiClient({ addresses: [server.addr] });
  const seen = new Set<string>();
  try {
    const events = watchWithResume(client.events, {
      resourceVersion: rv,
      signal,
      backoff: { initialMs: 50, maxMs: 500 },
      onRelist: () => undefined,
    });
    for await (const ev of events) {
      if (ev.type === 'ADDED') seen.add(ev.object.metadata.name);
      if (seen.size >= want) break;
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  } finally {
    await client.close();
  }
  return seen.size;
}

async function metric(server: ServerProc, name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

async function writeEvents(
  server: ServerProc,
  o: MemoryBoundOptions,
  log: DrillLog,
  counter = 'eventsWritten',
): Promise<void> {
  let next = 0;
  const writer = async (): Promise<void> => {
    for (let i = next++; i < o.events; i = next++) {
      const res = await fetch(`${server.url}/api/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(maximalEvent(i)),
      });
      if (log.check(res.status === 201, `event ${i} answered ${res.status}: ${(await res.text()).slice(0, 200)}`))
        log.add(counter);
      else await res.body?.cancel();
    }
  };
  await Promise.all(Array.from({ length: o.writers ?? 8 }, writer));
}

/** Creates `count` small nodes, then lists them in one GET while sampling RSS; answers the peak. */
async function listManyNodes(server: ServerProc, count: number, log: DrillLog): Promise<number> {
  let next = 0;
  const writer = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const res = await fetch(`${server.url}/api/v1/nodes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: `list-${i}` }, spec: {} }),
      });
      log.check(res.status === 201, `node list-${i} answered ${res.status}`);
      await res.body?.cancel();
    }
  };
  await Promise.all(Array.from({ length: 16 }, writer));
  const sampler = new RssSampler(server.child.pid as number);
  const list = (await (await fetch(`${server.url}/api/v1/nodes`)).json()) as { items: unknown[] };
  log.set('nodesListed', list.items.length);
  return sampler.stop();
}

function startDrillServer(o: MemoryBoundOptions, db: string, budget: string): Promise<ServerProc> {
  return startServer(
    ['--db', join(o.dir, db), '--no-controller', '--log-level', 'warn', '--max-watch-unsent-bytes', budget],
    o.heapLimitMiB === undefined ? {} : { env: { NODE_OPTIONS: `--max-old-space-size=${o.heapLimitMiB}` } },
  );
}

/** The same load with the byte budget off: the server is expected to exhaust its heap and die. */
async function runControl(o: MemoryBoundOptions, log: DrillLog): Promise<void> {
  const server = await startDrillServer(o, 'control.db', '4Gi');
  const sockets: Socket[] = [];
  const quiet = new DrillLog();
  try {
    for (let i = 0; i < o.silentWatchers; i++) sockets.push(silentWatcher(server.port, '/api/v1/events?watch=true'));
    await eventually(async () => (await metric(server, 'shepherd_watchers')) === o.silentWatchers, {
      what: `${o.silentWatchers} open watches (control)`,
    });
    await writeEvents(server, o, quiet, 'written').catch(() => undefined);
  } finally {
    for (const s of sockets) s.destroy();
    const exited = server.child.exitCode !== null || server.child.signalCode !== null;
    log.set('controlEventsAccepted', Number(quiet.counts['written'] ?? 0));
    log.set(
      'controlServer',
      exited ? `exited (${server.child.exitCode ?? server.child.signalCode}): out of heap` : 'survived',
    );
    log.check(
      exited,
      'with the byte budget off the server survived the same load: the drill does not tell bounded from unbounded',
    );
    await server.stop();
  }
}

export async function runMemoryBoundDrill(o: MemoryBoundOptions): Promise<DrillResult> {
  const started = performance.now();
  const log = new DrillLog();
  const server = await startDrillServer(o, 'memory.db', o.maxWatchUnsentBytes);
  const pid = server.child.pid as number;
  const sockets: Socket[] = [];
  const stopReading = new AbortController();
  let sampler: RssSampler | undefined;
  try {
    await fetch(`${server.url}/api/v1/events`).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 500));
    const baseline = rssOf(pid);
    log.set('baselineRssMiB', Math.round(baseline / MiB));
    const rv = (
      (await (await fetch(`${server.url}/api/v1/events`)).json()) as { metadata: { resourceVersion: string } }
    ).metadata.resourceVersion;
    const path = `/api/v1/events?watch=true&resourceVersion=${rv}`;
    for (let i = 0; i < o.silentWatchers; i++) sockets.push(silentWatcher(server.port, path));
    const reading = readingWatcher(server, rv, o.events, stopReading.signal);
    await eventually(async () => (await metric(server, 'shepherd_watchers')) === o.silentWatchers + 1, {
      what: `${o.silentWatchers + 1} open watches`,
    });

    sampler = new RssSampler(pid);
    const writing = performance.now();
    await writeEvents(server, o, log);
    log.set('writeSeconds', Math.round(elapsedSince(writing) / 100) / 10);
    const cut = await eventually(
      async () => {
        const n = await metric(server, 'shepherd_watches_too_slow_total');
        return n >= o.silentWatchers ? n : undefined;
      },
      { what: 'every silent watcher ended', timeoutMs: 30_000 },
    ).catch(() => metric(server, 'shepherd_watches_too_slow_total'));
    // Counted server-side: every silent one, plus each time the reading watcher fell behind the burst and resumed.
    log.set('watchesEnded', cut);
    log.check(cut >= o.silentWatchers, `only ${cut} watches were ended; ${o.silentWatchers} never read`);
    const seen = await Promise.race([reading, new Promise<number>((r) => setTimeout(() => r(-1), 30_000))]);
    log.set('readingWatcherEvents', seen);
    log.check(seen === o.events, `the reading watcher saw ${seen} of ${o.events} events`);
    const peak = sampler.stop();
    log.set('peakRssMiB', Math.round(peak / MiB));
    log.set('rssGrowthMiB', Math.round((peak - baseline) / MiB));
    log.check(
      peak - baseline <= o.rssGrowthLimitBytes,
      `RSS grew by ${Math.round((peak - baseline) / MiB)} MiB, more than the ${Math.round(o.rssGrowthLimitBytes / MiB)} MiB bound`,
    );
    if ((o.listNodes ?? 0) > 0) {
      const listPeak = await listManyNodes(server, o.listNodes as number, log);
      log.set('listPeakRssMiB', Math.round(listPeak / MiB));
      log.check(
        listPeak - baseline <= o.rssGrowthLimitBytes,
        `listing ${o.listNodes} nodes took RSS ${Math.round((listPeak - baseline) / MiB)} MiB over the baseline, more than the bound`,
      );
    }
    log.check((await fetch(`${server.url}/readyz`)).status === 200, '/readyz is not 200 after the load');
    log.set('finalRssMiB', Math.round(rssOf(pid) / MiB));
  } catch (err) {
    log.check(false, `the drill stopped: ${String(err)}`);
  } finally {
    sampler?.stop();
    const died = server.child.exitCode ?? server.child.signalCode;
    log.check(died === null, `the server exited during the drill (${String(died)}) with the byte budget on`);
    stopReading.abort();
    for (const s of sockets) s.destroy();
    await server.stop();
  }
  if (o.control === true) await runControl(o, log);
  return {
    drill: '8 memory bounded in bytes',
    settings: {
      silentWatchers: o.silentWatchers,
      events: o.events,
      eventBytes: JSON.stringify(maximalEvent(0)).length,
      maxWatchUnsentBytes: o.maxWatchUnsentBytes,
      rssGrowthLimitMiB: Math.round(o.rssGrowthLimitBytes / MiB),
      listNodes: o.listNodes ?? 0,
      heapLimitMiB: o.heapLimitMiB ?? 'default',
      control: o.control === true ? 'the same load with the byte budget off' : 'none',
    },
    counts: log.counts,
    problems: log.problems,
    durationMs: elapsedSince(started),
  };
}
