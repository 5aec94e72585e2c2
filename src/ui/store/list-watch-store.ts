import type { ObjectList, WatchEvent } from '../../client/api-client.js';
import { ReconnectBackoff, type BackoffPolicy } from '../../client/backoff.js';
import { ndjsonLines, parseWatchLine } from '../../client/ndjson.js';
import { isAbortError, type Clock } from '../../core/clock.js';
import { isReason, type ShepherdError } from '../../core/errors.js';
import type { Random } from '../../core/random.js';
import type { ApiTransport } from './transport.js';

export interface Versioned {
  metadata: { name: string; namespace?: string; resourceVersion: string };
}

/** One kind of object the page lists and watches: adding a resource to the dashboard is one of these. */
export interface ResourceDescriptor<T> {
  /** Plural, for the connection indicator ("nodes"). */
  title: string;
  /** The collection, e.g. `/api/v1/nodes`; lists and watches go to it. */
  path: string;
  /** Selectors every list and watch carries, already encoded (`fieldSelector=node%3Dn1`); none when absent. */
  query?: string;
  keyOf(obj: T): string;
}

export type StorePhase = 'connecting' | 'live' | 'reconnecting' | 'unauthorized';

export interface StoreStatus {
  phase: StorePhase;
  /** Why the store is reconnecting or signed out. */
  error?: ShepherdError | Error;
}

export interface ListWatchDeps<T> {
  resource: ResourceDescriptor<T>;
  transport: ApiTransport;
  clock: Clock;
  random: Random;
  /** Reconnect backoff; default 500 ms → 10 s: a person is watching, and one page is no stampede. */
  backoff?: BackoffPolicy;
  /** Items per list request (the API's `limit`; a server without paging answers everything at once). */
  pageSize?: number;
}

/**
 * A resource-agnostic list + watch cache for the page, the browser's counterpart of src/client/informer.ts:
 * list (in pages), then watch from the list's resourceVersion with bookmarks; when a stream ends or the server
 * goes away, resume from the last resourceVersion seen (bookmarks included) after a backoff; on 410 Gone, list
 * again and replace the cache. A 401 stops it (the page asks for a token and starts a new one).
 */
export class ListWatchStore<T extends Versioned> {
  readonly #d: ListWatchDeps<T>;
  readonly #items = new Map<string, T>();
  readonly #listeners = new Set<() => void>();
  #version = 0;
  #membership = 0;
  #rv: string | undefined;
  #status: StoreStatus = { phase: 'connecting' };

  constructor(deps: ListWatchDeps<T>) {
    this.#d = deps;
  }

  get resource(): ResourceDescriptor<T> {
    return this.#d.resource;
  }

  /** Grows by one on every change of the contents; views memoise on it. */
  get version(): number {
    return this.#version;
  }

  /** Grows when an object is added or removed (not when one changes): views keep their name order until then. */
  get membership(): number {
    return this.#membership;
  }

  get status(): StoreStatus {
    return this.#status;
  }

  /** The last resourceVersion the store has seen everything up to (list, event or bookmark). */
  get resourceVersion(): string | undefined {
    return this.#rv;
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  values(): IterableIterator<T> {
    return this.#items.values();
  }

  keys(): IterableIterator<string> {
    return this.#items.keys();
  }

  /** Called after every change of contents or status; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Runs until the signal aborts or the server says 401. */
  async run(signal: AbortSignal): Promise<void> {
    const backoff = new ReconnectBackoff(this.#d.backoff ?? { initialMs: 500, maxMs: 10_000 }, this.#d.random);
    while (!signal.aborted) {
      try {
        if (this.#rv === undefined) await this.#list(signal);
        if (await this.#watch(signal)) {
          backoff.reset();
          continue;
        }
      } catch (err) {
        if (signal.aborted) return;
        if (isReason(err, 'Gone')) {
          // The resourceVersion left the server's history (a long outage, a restored database): start afresh.
          this.#rv = undefined;
          continue;
        }
        if (isReason(err, 'Unauthorized')) {
          this.#setStatus({ phase: 'unauthorized', error: err as ShepherdError });
          return;
        }
        this.#setStatus({ phase: 'reconnecting', error: err as Error });
      }
      try {
        await this.#d.clock.sleep(backoff.next(), signal);
      } catch (err) {
        if (signal.aborted || isAbortError(err)) return;
        throw err;
      }
    }
  }

  async #list(signal: AbortSignal): Promise<void> {
    const { path, query: selectors } = this.#d.resource;
    const limit = this.#d.pageSize ?? 500;
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    do {
      const query = `${selectors === undefined ? '' : `${selectors}&`}limit=${limit}${cont === undefined ? '' : `&continue=${encodeURIComponent(cont)}`}`;
      const page = await this.#d.transport.getJson<ObjectList<T> & { metadata: { continue?: string } }>(
        `${path}?${query}`,
        signal,
      );
      items.push(...page.items);
      rv = page.metadata.resourceVersion;
      cont = page.metadata.continue === '' ? undefined : page.metadata.continue;
    } while (cont !== undefined);
    this.#items.clear();
    for (const item of items) this.#items.set(this.#d.resource.keyOf(item), item);
    this.#rv = rv;
    this.#version++;
    this.#membership++;
    this.#notify();
  }

  /** One watch stream; true when it delivered something before it ended (then resume at once). */
  async #watch(signal: AbortSignal): Promise<boolean> {
    const { path, query } = this.#d.resource;
    const rv = encodeURIComponent(this.#rv ?? '');
    const body = await this.#d.transport.openStream(
      `${path}?${query === undefined ? '' : `${query}&`}watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`,
      signal,
    );
    this.#setStatus({ phase: 'live' });
    let progressed = false;
    for await (const line of ndjsonLines(chunksOf(body, signal))) {
      const ev = parseWatchLine<T>(line, path);
      progressed = true;
      this.#rv = ev.object.metadata.resourceVersion;
      if (ev.type !== 'BOOKMARK') this.#apply(ev);
    }
    return progressed;
  }

  #apply(ev: Exclude<WatchEvent<T>, { type: 'BOOKMARK' }>): void {
    const key = this.#d.resource.keyOf(ev.object);
    const had = this.#items.has(key);
    if (ev.type === 'DELETED') this.#items.delete(key);
    else this.#items.set(key, ev.object);
    if (had !== this.#items.has(key)) this.#membership++;
    this.#version++;
    this.#notify();
  }

  #setStatus(status: StoreStatus): void {
    if (this.#status.phase === status.phase && this.#status.error === status.error) return;
    this.#status = status;
    this.#notify();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** A fetch body as chunks; Safari's ReadableStream is not async-iterable, so read it by hand. */
async function* chunksOf(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    cancel();
  }
}
