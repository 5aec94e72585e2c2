// Drill 5 (RELIABILITY.md): watch clients under random disconnects. Writers create, update and delete nodes at a
// steady rate against the real API server (in-process, on loopback); watchers using watchWithResume reach it
// through a proxy that cuts every connection after a random lifetime, so streams break mid-line and resume by
// resourceVersion. Every such watcher must end with every change exactly once, in order. One more watcher is
// stranded (its proxy goes down) while the history it needs is compacted away: it must get Gone, relist, and
// converge on the final state.
import { join } from 'node:path';
import { buildServer } from '../../../src/api/build-server.js';
import { HttpApiClient } from '../../../src/client/http-client.js';
import { systemClock } from '../../../src/core/clock.js';
import type { Node } from '../../../src/core/node.js';
import { seededRandom, systemRandom } from '../../../src/core/random.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { eventually } from '../eventually.js';
import { ChaosProxy } from './chaos-proxy.js';
import { DrillLog, elapsedSince, type DrillResult } from './drill-result.js';
import { ResumingWatcher as Watcher } from './resuming-watcher.js';

export interface WatchDisconnectOptions {
  dir: string;
  /** Changes the writers make in all (creates + updates + deletes). */
  changes: number;
  changesPerSecond: number;
  /** Watchers behind the cutting proxy that must see everything exactly once. */
  watchers: number;
  writers?: number;
  /** Connection lifetime range of the cutting proxy. */
  minLifeMs?: number;
  maxLifeMs?: number;
  seed?: number;
}

interface Ack {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  rv: number;
}

const line = (e: { type: string; name: string; rv: number }): string => `${e.type} ${e.name}@${e.rv}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Paced writers: each owns its nodes and runs create → updates → (every third) delete, recording each ack. */
async function runWriters(port: number, o: WatchDisconnectOptions, acks: Ack[], log: DrillLog): Promise<void> {
  const client = new HttpApiClient({ addresses: [`127.0.0.1:${port}`] });
  const started = performance.now();
  let issued = 0;
  const ticket = async (): Promise<boolean> => {
    if (issued >= o.changes) return false;
    const k = issued++;
    const due = started + (k * 1000) / o.changesPerSecond - performance.now();
    if (due > 0) await sleep(due);
    return true;
  };
  const ack = (type: Ack['type'], n: Node): void =>
    void acks.push({ type, name: n.metadata.name, rv: Number(n.metadata.resourceVersion) });
  const writer = async (w: number): Promise<void> => {
    for (let k = 0; ; k++) {
      const name = `n-${w}-${k}`;
      if (!(await ticket())) return;
      let node = await client.nodes.create({ metadata: { name, labels: { step: '0' } }, spec: {} } as never);
      ack('ADDED', node);
      for (let step = 1; step <= 3; step++) {
        if (!(await ticket())) return;
        node = await client.nodes.update({ ...node, metadata: { ...node.metadata, labels: { step: String(step) } } });
        ack('MODIFIED', node);
      }
      if (k % 3 === 2) {
        if (!(await ticket())) return;
        ack('DELETED', await client.nodes.delete(name));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: o.writers ?? 6 }, (_, w) => writer(w)));
  } catch (err) {
    log.check(false, `a writer failed: ${String(err)}`);
  } finally {
    await client.close();
  }
}

/** True once cond holds, false if it does not within timeoutMs (the drill records a problem, it does not throw). */
function reached(cond: () => boolean, what: string, timeoutMs: number): Promise<boolean> {
  return eventually(cond, { what, timeoutMs, intervalMs: 20 }).then(
    () => true,
    () => false,
  );
}

/** Strands the laggard from a third of the run to two thirds, compacting past it meanwhile. */
async function strandLaggard(
  store: SqliteStore,
  proxy: ChaosProxy,
  laggard: Watcher,
  others: Watcher[],
  acks: Ack[],
  o: WatchDisconnectOptions,
  log: DrillLog,
): Promise<void> {
  await reached(() => acks.length >= o.changes / 3, 'a third of the changes acknowledged', 120_000);
  await proxy.pause();
  await sleep(50);
  const stranded = laggard.last;
  await reached(() => acks.length >= (2 * o.changes) / 3, 'two thirds of the changes acknowledged', 120_000);
  const caughtUp = await reached(
    () => others.every((w) => w.last > stranded + 1),
    'the others past the laggard',
    30_000,
  );
  const target = Math.min(...others.map((w) => w.last));
  log.check(
    caughtUp && target > stranded,
    `could not compact past the stranded watcher (at ${stranded}, others at ${target})`,
  );
  store.compact(target);
  log.set('laggardStrandedAt', stranded);
  log.set('compactedTo', target);
  await proxy.resume();
}

function sameMap(a: Map<string, number>, b: Map<string, number>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

function checkWatchers(
  expected: Ack[],
  final: Map<string, number>,
  watchers: Watcher[],
  laggard: Watcher,
  log: DrillLog,
): void {
  const want = expected.map(line);
  for (const w of watchers) {
    const got = w.events.map(line);
    const firstDiff = got.findIndex((g, i) => g !== want[i]);
    log.check(
      got.length === want.length && firstDiff === -1,
      `${w.name}: saw ${got.length} of ${want.length} changes; first difference at ${firstDiff}: got ${got[firstDiff] ?? '-'}, want ${want[firstDiff === -1 ? got.length : firstDiff] ?? '-'}`,
    );
    log.check(w.error === undefined, `${w.name} failed: ${String(w.error)}`);
    log.add('resumes', w.resumes);
  }
  log.check(laggard.relistAt !== undefined, 'the stranded watcher never got Gone and relisted');
  const before = laggard.events.slice(0, laggard.relistAt ?? 0).map(line);
  log.check(
    before.every((g, i) => g === want[i]),
    'the stranded watcher saw something other than the changes in order before it was stranded',
  );
  const replayed = laggard.replay();
  replayed.delete('drill-start');
  log.check(
    sameMap(replayed, final),
    `the stranded watcher ended with ${replayed.size} nodes, the server has ${final.size} (or their versions differ)`,
  );
  log.check(laggard.error === undefined, `the stranded watcher failed: ${String(laggard.error)}`);
  log.set('laggardEventsAfterRelist', laggard.events.length - (laggard.relistAt ?? 0));
}

export async function runWatchDisconnectDrill(o: WatchDisconnectOptions): Promise<DrillResult> {
  const started = performance.now();
  const log = new DrillLog();
  const store = await openSqliteStore({ path: join(o.dir, 'watch-drill.db') });
  const api = await buildServer({
    store,
    clock: systemClock,
    random: systemRandom,
    log: false,
    version: '0.0.0-drill',
  });
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (api.app.server.address() as { port: number }).port;
  const random = seededRandom(o.seed ?? 9);
  const life = { minLifeMs: o.minLifeMs ?? 30, maxLifeMs: o.maxLifeMs ?? 400 };
  const cutting = new ChaosProxy({ targetPort: port, random, ...life });
  const stranding = new ChaosProxy({ targetPort: port, random, ...life });
  const watchers: Watcher[] = [];
  let laggard: Watcher | undefined;
  try {
    const cutPort = await cutting.start();
    const strandPort = await stranding.start();
    // resourceVersion 0 means "list, then watch" (docs/api.md): start from a real revision instead.
    await store.create('nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'drill-start',
        uid: 'drill-start',
        resourceVersion: '',
        creationTimestamp: new Date().toISOString(),
      },
      spec: {},
      status: { conditions: [] },
    } as Node);
    const start = await store.list('nodes');
    const list = {
      apiVersion: 'v1',
      kind: 'NodeList',
      metadata: { resourceVersion: String(start.revision) },
      items: start.items,
    };
    for (let i = 0; i < o.watchers; i++)
      watchers.push(new Watcher(`watcher-${i}`, `127.0.0.1:${cutPort}`, 'nodes', list, i + 1));
    laggard = new Watcher('stranded-watcher', `127.0.0.1:${strandPort}`, 'nodes', list, 99);
    const acks: Ack[] = [];
    await Promise.all([
      runWriters(port, o, acks, log),
      strandLaggard(store, stranding, laggard, watchers, acks, o, log),
    ]);
    const finalRv = await store.currentRevision();
    const final = new Map(
      (await store.list('nodes')).items.map((n) => [n.metadata.name, Number(n.metadata.resourceVersion)] as const),
    );
    const all = [...watchers, laggard];
    log.check(
      await reached(() => all.every((w) => w.last >= finalRv), 'every watcher caught up', 60_000),
      `not every watcher caught up with ${finalRv}: ${all.map((w) => `${w.name}@${w.last}`).join(', ')}`,
    );
    await Promise.all(all.map((w) => w.stop()));
    // The marker node was there before the watch began: it is part of the final state, not a change.
    final.delete('drill-start');
    acks.sort((a, b) => a.rv - b.rv);
    log.set('changes', acks.length);
    log.set('proxyCuts', cutting.cuts + stranding.cuts);
    checkWatchers(acks, final, watchers, laggard, log);
  } finally {
    await Promise.all([...watchers, ...(laggard ? [laggard] : [])].map((w) => w.stop()));
    await cutting.close();
    await stranding.close();
    await api.app.close();
    await store.close();
  }
  return {
    drill: '5 watch clients under random disconnects',
    settings: { ...o, dir: '(temp)' },
    counts: log.counts,
    problems: log.problems,
    durationMs: elapsedSince(started),
  };
}
