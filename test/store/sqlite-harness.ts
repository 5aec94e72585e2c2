import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LIST_SNAPSHOT_TTL_MS } from '../../src/store/sqlite/list-snapshots.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { SqliteStoreOptions } from '../../src/store/sqlite/sqlite-store-options.js';
import { FakeClock } from '../support/fake-clock.js';
import type { ContractBackend } from './store-contract.js';

export interface TestStore {
  store: SqliteStore;
  clock: FakeClock;
  dir: string;
  path: string;
  /** Closes the store (if still open) and removes the temp dir. */
  cleanup(): Promise<void>;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'shepherd-'));
}

/** A store on a fresh temp dir, driven by a FakeClock so compaction and bookmarks step deterministically. */
export async function openTestStore(options: Partial<SqliteStoreOptions> = {}): Promise<TestStore> {
  const dir = tempDir();
  const path = join(dir, 'shepherd.db');
  const clock = new FakeClock();
  const store = await openSqliteStore({ path, clock, ...options });
  return {
    store,
    clock,
    dir,
    path,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The contract factory for SQLite: compaction up to the current revision, fake time for bookmarks. */
export async function sqliteBackend(): Promise<ContractBackend> {
  const t = await openTestStore();
  return {
    store: t.store,
    cleanup: t.cleanup,
    compact: async () => {
      t.store.compact(await t.store.currentRevision());
    },
    advance: (ms) => t.clock.advance(ms),
    expireLists: () => t.clock.advance(DEFAULT_LIST_SNAPSHOT_TTL_MS),
  };
}
