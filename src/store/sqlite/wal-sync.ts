import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';

/** Makes what is written to the WAL durable; the store's group commit calls it after each commit (group-commit.ts). */
export interface WalSyncer {
  /** Everything written to the WAL before the call is on disk when the promise resolves. */
  sync(): Promise<void>;
  /** The same, blocking: for the health probe, never on the write path. */
  syncNow(): void;
  close(): void;
}

/**
 * `fdatasync` of the `-wal` file on libuv's thread pool, so the event loop goes on while the disk works (with
 * SQLite's own `synchronous = FULL` the COMMIT waited for it on the event loop: 2–5 ms per group commit, a quarter
 * of the main thread at 4,000 writes/s). Any descriptor of the file will do: Linux syncs the file's pages, whoever
 * wrote them. The file is opened at the first sync, after SQLite has created it, and stays open: in WAL mode
 * SQLite keeps it (truncating it, never replacing it) while the store's connection is open.
 */
export class FileWalSyncer implements WalSyncer {
  readonly #path: string;
  #fd: number | undefined;

  constructor(databasePath: string) {
    this.#path = `${databasePath}-wal`;
  }

  sync(): Promise<void> {
    let fd: number;
    try {
      fd = this.#open();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  }

  syncNow(): void {
    fdatasyncSync(this.#open());
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): number {
    this.#fd ??= openSync(this.#path, 'r');
    return this.#fd;
  }
}
