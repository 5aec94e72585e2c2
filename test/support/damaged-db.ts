import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { node } from '../store/fixtures.js';

/** Writes garbage over every 7th page of the file (leaving the header page alone unless `header`). */
export function damage(path: string, options: { header?: boolean } = {}): void {
  const size = statSync(path).size;
  const fd = openSync(path, 'r+');
  try {
    if (options.header) writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, 0);
    for (let page = 5; page < size / 4096 - 2; page += 7) writeSync(fd, Buffer.alloc(64, 0xab), 0, 64, page * 4096);
  } finally {
    closeSync(fd);
  }
}

/** A store with a few hundred pages of nodes, checkpointed into the main file. */
export async function filledStore(path: string): Promise<SqliteStore> {
  const store = await openSqliteStore({ path });
  const pad = { 'a.io/pad': 'x'.repeat(3000) };
  await Promise.all(
    Array.from({ length: 300 }, (_, i) =>
      store.create('nodes', { ...node(`n${i}`), metadata: { ...node(`n${i}`).metadata, annotations: pad } }),
    ),
  );
  store.database.pragma('wal_checkpoint(TRUNCATE)');
  return store;
}
