import Database from 'better-sqlite3';
import { InternalError, ServiceUnavailableError, ShepherdError } from '../../core/errors.js';
import { isCorruption } from './database.js';

/**
 * Whether the SQLite store still works, for /readyz: corruption (SQLITE_CORRUPT, SQLITE_NOTADB) makes it unready
 * until a restart, which checks the file again; an I/O error (SQLITE_IOERR_*) until a commit succeeds or the probe,
 * a write that changes nothing, does. Errors that leave reads working (SQLITE_FULL, SQLITE_READONLY, SQLITE_BUSY)
 * do not count: every write already answers 503 saying why.
 */
export class StoreHealth {
  readonly #path: string;
  readonly #probe: () => void;
  #damaged: Error | undefined;
  #ioError: Error | undefined;

  constructor(path: string, probe: () => void) {
    this.#path = path;
    this.#probe = probe;
  }

  failed(err: unknown): void {
    if (isCorruption(err)) this.#damaged ??= err as Error;
    else if (err instanceof Database.SqliteError && err.code.startsWith('SQLITE_IOERR')) this.#ioError = err;
  }

  succeeded(): void {
    this.#ioError = undefined;
  }

  /** Throws ServiceUnavailableError while the store is failing; probes an I/O failure to see if it has passed. */
  check(): void {
    if (this.#damaged !== undefined) {
      throw new ServiceUnavailableError(
        `the database at ${this.#path} is damaged (${this.#damaged.message}): restore it from a backup, or restart with --db pointing to a new file`,
        { cause: this.#damaged },
      );
    }
    if (this.#ioError === undefined) return;
    try {
      this.#probe();
      this.#ioError = undefined;
    } catch (err) {
      this.failed(err);
      throw new ServiceUnavailableError(
        `the database at ${this.#path} fails with I/O errors (${(err as Error).message}): check the disk and the server log`,
        { cause: err },
      );
    }
  }
}

/** A storage failure as the API answers it: SQLite's errors are 503 with Retry-After, ours pass through. */
export function storageError(err: unknown): Error {
  if (err instanceof Database.SqliteError) {
    return new ServiceUnavailableError(`storage is unavailable: ${err.message} (${err.code}); retry later`, {
      cause: err,
      retryAfterSeconds: 1,
    });
  }
  if (err instanceof ShepherdError) return err;
  return new InternalError(`storage failed unexpectedly: ${String(err)}`, { cause: err });
}
