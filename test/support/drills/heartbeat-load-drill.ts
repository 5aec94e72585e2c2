// Drill 7 (RELIABILITY.md): steady heartbeat load. A fleet of `leases` agents renews its Leases; the database and its
// WAL must stay bounded because compaction (history older than --watch-history) and WAL checkpoints keep up.
// kine, k3s's SQLite shim, is known for multi-GB files of lease history: this is the drill that would catch it.
//
// Two paces:
// - `fleet`: the real cadence of a fleet (each lease renewed every renewIntervalMs: a 40 s lease is renewed
//   every 10 s), on a FakeClock so hours of fleet time run in seconds; the store's own compaction loop runs.
// - `flat-out`: renewals as fast as the store commits them, on the real clock. With the default 5 min of
//   history every renewal made in the run is still inside the window, so all of them stay in the change log:
//   this measures the worst case the history setting allows, not a leak.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from '../../../src/core/clock.js';
import type { Lease } from '../../../src/core/lease.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../fake-clock.js';
import { DrillLog, elapsedSince, type DrillResult } from './drill-result.js';

export interface HeartbeatLoadOptions {
  dir: string;
  leases: number;
  renewals: number;
  pace: 'fleet' | 'flat-out';
  /** Fleet pace: each lease renews this often (fleet time). Default 10 s. */
  renewIntervalMs?: number;
  /** The server's --watch-history; default 5 min (the server default). */
  historyRetentionMs?: number;
  /** Default 10 s (the server's own default is 1 s: DEFAULT_COMPACTION_INTERVAL_MS in sqlite-store.ts). */
  compactionIntervalMs?: number;
  /** Renewals committed together in flat-out pace (a fleet's concurrent requests). Default 100. */
  concurrency?: number;
}

export interface SizeSample {
  renewals: number;
  dbBytes: number;
  walBytes: number;
  keptRevisions: number;
}

const MB = 1024 * 1024;

function leaseObject(i: number, renewTime: number): Lease {
  const name = `node-${String(i).padStart(5, '0')}`;
  return {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: 'node-lease',
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: '',
      creationTimestamp: new Date(renewTime).toISOString(),
    },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new Date(renewTime).toISOString() },
  };
}

function sample(store: SqliteStore, renewals: number): SizeSample {
  const s = store.stats();
  let dbBytes = 0;
  try {
    dbBytes = statSync(store.path).size;
  } catch {
    dbBytes = s.pageCount * s.pageSize;
  }
  return { renewals, dbBytes, walBytes: s.walBytes, keptRevisions: s.keptRevisions };
}

/** Renews leases [from, from + n) (mod the fleet) concurrently: one group commit. */
async function renewBatch(store: SqliteStore, clock: Clock, rvs: string[], from: number, n: number): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async (_, k) => {
      const i = (from + k) % rvs.length;
      const stored = await store.update('leases', leaseObject(i, clock.now()), rvs[i] as string);
      rvs[i] = stored.metadata.resourceVersion;
    }),
  );
}

interface Run {
  store: SqliteStore;
  clock: Clock;
  /** Moves fleet time on after one batch of `batch` renewals. */
  tick(): Promise<void>;
  batch: number;
}

async function openRun(o: HeartbeatLoadOptions): Promise<Run> {
  const path = join(o.dir, `heartbeat-${o.pace}.db`);
  const common = {
    path,
    historyRetentionMs: o.historyRetentionMs ?? 300_000,
    compactionIntervalMs: o.compactionIntervalMs ?? 10_000,
  };
  if (o.pace === 'flat-out') {
    const store = await openSqliteStore({ ...common, clock: systemClock });
    return { store, clock: systemClock, tick: async () => {}, batch: o.concurrency ?? 100 };
  }
  // One simulated second per batch: leases / renewInterval renewals a second, as the fleet would send them.
  const clock = new FakeClock();
  const store = await openSqliteStore({ ...common, clock });
  const perSecond = Math.max(1, Math.round((o.leases * 1000) / (o.renewIntervalMs ?? 10_000)));
  return { store, clock, tick: () => clock.advance(1000), batch: perSecond };
}

export async function runHeartbeatLoadDrill(o: HeartbeatLoadOptions): Promise<DrillResult & { samples: SizeSample[] }> {
  const started = performance.now();
  const log = new DrillLog();
  const run = await openRun(o);
  const { store, clock } = run;
  const samples: SizeSample[] = [];
  try {
    const rvs: string[] = [];
    for (let i = 0; i < o.leases; i++)
      rvs.push((await store.create('leases', leaseObject(i, clock.now()))).metadata.resourceVersion);
    const every = Math.max(run.batch, Math.floor(o.renewals / 40));
    let done = 0;
    let nextSample = every;
    while (done < o.renewals) {
      const n = Math.min(run.batch, o.renewals - done);
      await renewBatch(store, clock, rvs, done, n);
      done += n;
      await run.tick();
      if (done >= nextSample || done === o.renewals) {
        samples.push(sample(store, done));
        nextSample += every;
      }
    }
    const last = samples[samples.length - 1] as SizeSample;
    const secs = (performance.now() - started) / 1000;
    log.set('renewals', done);
    log.set('renewalsPerSecond', Math.round(done / secs));
    log.set('finalDbMB', +(last.dbBytes / MB).toFixed(1));
    log.set('finalWalMB', +(last.walBytes / MB).toFixed(1));
    log.set('maxDbMB', +(Math.max(...samples.map((s) => s.dbBytes)) / MB).toFixed(1));
    log.set('maxWalMB', +(Math.max(...samples.map((s) => s.walBytes)) / MB).toFixed(1));
    log.set('finalChangeLogRows', last.keptRevisions);
    log.set('integrityCheck', String(store.database.pragma('integrity_check', { simple: true })));
    log.check(log.counts['integrityCheck'] === 'ok', `integrity_check says ${log.counts['integrityCheck']}`);
    if (o.pace === 'fleet') checkBounded(o, run.batch, samples, log);
    return {
      drill: `7 steady heartbeat load (${o.pace} pace)`,
      settings: settingsOf(o, run.batch),
      counts: log.counts,
      problems: log.problems,
      durationMs: elapsedSince(started),
      samples,
    };
  } finally {
    await store.close();
  }
}

function settingsOf(o: HeartbeatLoadOptions, batch: number): Record<string, number | string> {
  const s: Record<string, number | string> = {
    leases: o.leases,
    renewals: o.renewals,
    pace: o.pace,
    historyRetentionMs: o.historyRetentionMs ?? 300_000,
  };
  if (o.pace === 'fleet') s['renewalsPerFleetSecond'] = batch;
  else s['concurrency'] = batch;
  return s;
}

/**
 * At fleet pace the log holds about rate × (retention + one compaction period) rows, and once that window
 * is full the file stops growing: freed pages are reused. We check both, after the first full window.
 */
function checkBounded(o: HeartbeatLoadOptions, perSecond: number, samples: SizeSample[], log: DrillLog): void {
  const windowS = ((o.historyRetentionMs ?? 300_000) + (o.compactionIntervalMs ?? 10_000)) / 1000;
  const maxRows = Math.ceil(perSecond * (windowS + 1));
  log.set('changeLogRowBound', maxRows);
  for (const s of samples)
    log.check(
      s.keptRevisions <= maxRows,
      `after ${s.renewals} renewals the change log keeps ${s.keptRevisions} revisions, above ${maxRows}`,
    );
  // The first window fills the log; one compaction period later the size must hold still.
  const steadyFrom = Math.ceil(perSecond * (windowS + (o.compactionIntervalMs ?? 10_000) / 1000));
  const settled = samples.filter((s) => s.renewals >= steadyFrom);
  if (
    !log.check(
      settled.length >= 2,
      `the run is too short to reach a steady state: give more than ${steadyFrom} renewals`,
    )
  )
    return;
  const base = (settled[0] as SizeSample).dbBytes;
  for (const s of settled) {
    log.check(
      s.dbBytes <= base * 1.1 + MB,
      `the database grew from ${(base / MB).toFixed(1)} MB to ${(s.dbBytes / MB).toFixed(1)} MB under a steady load (after ${s.renewals} renewals)`,
    );
    log.check(
      s.walBytes <= 32 * MB,
      `the WAL reached ${(s.walBytes / MB).toFixed(1)} MB after ${s.renewals} renewals (checkpoints are not keeping up)`,
    );
  }
  log.set('steadyStateDbMB', +(base / MB).toFixed(1));
}
