import type { StoreOptions } from '../store.js';

/** History kept DEFAULT_HISTORY_RETENTION_MS by default, compacted every DEFAULT_COMPACTION_INTERVAL_MS (1 s). */
export interface SqliteStoreOptions extends StoreOptions {
  /** DB file; parent dir must exist. */
  path: string;
  /** For the commit-latency / batch-size metrics. */
  onCommit?: (batchSize: number, durationMs: number) => void;
  /** Events a watcher may fall behind before it is ended (watchTooSlowError); default 10,000. */
  watchQueueCapacity?: number;
  /** Where the .sql migrations are; default `migrations/` of the package. */
  migrationsDir?: string;
  /** `PRAGMA quick_check` on open for files up to this size (database.ts); default 512 MiB, 0 never. */
  integrityCheckMaxBytes?: number;
  /** Objects whose stored JSON is kept in memory for gets (recent-objects.ts); default 150,000, 0 disables. */
  recentObjects?: number;
  /** Bytes (JSON characters) that cache and the writer's delta bases may hold, each; default 32 MiB. */
  recentObjectsBytes?: number;
  /**
   * How far back (revisions) a logged delta may refer for its base; compaction keeps that many revisions of
   * segments beyond the compacted revision. Default DELTA_WINDOW (100,000); tests use small values.
   */
  deltaWindow?: number;
  /** How long a paged list's snapshot waits for its next page; default DEFAULT_LIST_SNAPSHOT_TTL_MS (60 s). */
  listSnapshotTtlMs?: number;
  /** Paged lists held open at once; default DEFAULT_MAX_LIST_SNAPSHOTS (16). */
  maxListSnapshots?: number;
  /** Copy the WAL into the database on a worker thread (checkpointer.ts); default true. */
  checkpointOnWorker?: boolean;
}

// Compaction and the WAL checkpoint after it (maintenance.ts): small, frequent passes keep each step short (at 10 s
// a 20k-node fleet left ~40 MB of WAL per checkpoint and stalled renewals for seconds).
export const DEFAULT_COMPACTION_INTERVAL_MS = 1_000;
/** Most revisions one compaction pass compacts; a backlog (after downtime) is worked off over several passes. */
export const MAX_COMPACTION_REVISIONS = 20_000;
export const DEFAULT_WATCH_QUEUE = 10_000;
/**
 * Enough entries for the leases of a 100,000-node fleet (each renewal reads its lease first): an LRU smaller than
 * the set of keys renewed in a cycle hits nothing. The byte bound is what limits memory.
 */
export const DEFAULT_RECENT_OBJECTS = 150_000;
/** ~80,000 leases (~0.4 KB) fit; nodes (~1.5 KB, written every few minutes) come and go; large objects do not stay. */
export const DEFAULT_RECENT_OBJECTS_BYTES = 32 * 1024 * 1024;
