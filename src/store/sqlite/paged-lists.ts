import type { Clock } from '../../core/clock.js';
import { invalidContinueError, listExpiredError } from '../../core/errors.js';
import type { Resource } from '../../core/kinds.js';
import type { Logger } from '../../core/logger.js';
import { shareStrings } from '../shared-strings.js';
import type { ListContinuation, ListOptions } from '../store.js';
import { ListSnapshots, pageReader, type ListSnapshotOptions, type PageReader } from './list-snapshots.js';
import type { PageRow, PageStatements } from './statements.js';

/** The rows of one page, still JSON text, and what the next page needs. */
export interface RowPage {
  rows: PageRow[];
  revision: number;
  continueFrom?: ListContinuation;
}

/**
 * The reads of the SQLite store's paged lists: a first page from the writer's connection at the current revision;
 * a later page from the current rows when nothing of its kind was written since the first page, else from the
 * list's snapshot (list-snapshots.ts), else GoneError. Everything here is synchronous, so a page and the revision
 * it is read at cannot be torn apart by a commit.
 */
export class PagedLists {
  readonly #readPage: PageReader;
  readonly #snapshots: ListSnapshots;
  /** Per kind, the newest revision that wrote one of its objects; kinds not written since open: `#openedAt`. */
  readonly #newestWrite = new Map<Resource, number>();
  readonly #openedAt: number;

  constructor(
    deps: { path: string; page: PageStatements; clock: Clock; log: Logger; revision: number },
    options: ListSnapshotOptions,
  ) {
    this.#readPage = pageReader(deps.page);
    this.#snapshots = new ListSnapshots(deps.path, deps, options);
    this.#openedAt = deps.revision;
  }

  /** Snapshots open now: the store's checkpoints must not wait for them. */
  get openSnapshots(): number {
    return this.#snapshots.size;
  }

  /** A commit wrote an object of `resource` at `revision` (called in the same synchronous step as the commit). */
  noteWrite(resource: Resource, revision: number): void {
    this.#newestWrite.set(resource, revision);
  }

  /** One page of `resource` when the store is at `current`. */
  read(resource: Resource, options: ListOptions, current: number): RowPage {
    const prefix = options.prefix ?? '';
    const below = prefix === '' ? undefined : prefixEnd(prefix);
    const from = options.continueFrom;
    // Keys are never empty nor equal to a namespace prefix, so "after the prefix" is "every key with it".
    const after = from !== undefined && from.key > prefix ? from.key : prefix;
    // One row more than asked tells whether another page follows.
    const limit = options.limit === undefined ? -1 : options.limit + 1;
    let revision: number;
    let rows: PageRow[];
    if (from === undefined) {
      rows = this.#readPage(resource, after, below, limit);
      revision = current;
      if (rows.length === limit) this.#snapshots.hold(revision);
    } else {
      revision = from.revision;
      rows = this.#laterPage(resource, revision, current)(resource, after, below, limit);
    }
    const more = rows.length === limit;
    if (more) rows.pop();
    else if (from !== undefined) this.#snapshots.release(revision);
    const lastKey = rows.at(-1)?.[0];
    return more && lastKey !== undefined
      ? { rows, revision, continueFrom: { key: lastKey, revision } }
      : { rows, revision };
  }

  /** Closes snapshots unused for longer than their TTL. */
  expire(): void {
    this.#snapshots.expire();
  }

  closeAll(): void {
    this.#snapshots.closeAll();
  }

  /** Where a page after the first reads as of `revision`. */
  #laterPage(resource: Resource, revision: number, current: number): PageReader {
    if (!Number.isSafeInteger(revision) || revision < 1 || revision > current) {
      throw invalidContinueError(`names revision ${revision}, which this store has not reached`);
    }
    if ((this.#newestWrite.get(resource) ?? this.#openedAt) <= revision) {
      this.#snapshots.touch(revision);
      return this.#readPage;
    }
    const read = this.#snapshots.reader(revision);
    if (read === undefined) throw listExpiredError(`the snapshot of this list at revision ${revision} expired`);
    return read;
  }
}

/** Rows parsed per event-loop turn when listing: a 10,000-object page must not hold up /readyz or renewals. */
const LIST_PARSE_CHUNK = 2000;

/**
 * One JSON.parse per row. The rows were read in one synchronous call (so they are one revision); parsing, the
 * expensive part, gives the event loop a turn between chunks, so other requests are answered meanwhile. Equal
 * string values within a chunk become one string (shared-strings.ts): listed objects are what informers keep.
 */
export async function parseRows<T>(rows: PageRow[]): Promise<T[]> {
  const items = new Array<T>(rows.length);
  let seen = new Map<string, string>();
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % LIST_PARSE_CHUNK === 0) {
      seen = new Map();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const item = JSON.parse((rows[i] as PageRow)[1]) as T;
    shareStrings(item, seen);
    items[i] = item;
    // Drop each row's text once parsed: a large page would otherwise hold both forms until the end.
    (rows as unknown[])[i] = undefined;
  }
  return items;
}

/** Smallest string above every key that starts with `prefix` (keys are ASCII names). */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
