import { isAbortError, systemClock, type Clock } from '../core/clock.js';
import { GoneError, ShepherdError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { objectKey } from '../core/object-key.js';
import { systemRandom, type Random } from '../core/random.js';
import type { ObjectList, ResourceClient, WatchEvent } from './api-client.js';
import { ReconnectBackoff, type BackoffPolicy } from './backoff.js';

export interface Versioned {
  metadata: { name: string; namespace?: string; resourceVersion: string };
}

export interface WatchResumeOptions<T> {
  /** Resume after this resourceVersion; "" or "0" starts with an ADDED for every current object. */
  resourceVersion?: string;
  /** What the caller already holds (e.g. from its own list), so the delta after a relist is right. */
  known?: T[];
  /**
   * Called with a fresh list after the server answered Gone (410). When given, it replaces the synthetic
   * delta events: the caller swaps its whole state for the list.
   */
  onRelist?: (list: ObjectList<T>) => void | Promise<void>;
  /**
   * Lists again after Gone however the caller keeps its state, answering the resourceVersion to watch from (the
   * informer pages straight into its cache). Replaces the built-in list, `onRelist` and the synthetic events.
   */
  relist?: () => Promise<string>;
  keyOf?: (obj: T) => string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks?: boolean;
  signal?: AbortSignal;
  clock?: Clock;
  random?: Random;
  log?: Logger;
  /** Reconnect backoff; default 1 s → 30 s, doubling, with jitter. */
  backoff?: Partial<BackoffPolicy>;
}

/** Errors worth waiting out: the server is unreachable, overloaded or failing; anything else is the caller's. */
export function isTransientError(err: unknown): boolean {
  return (
    err instanceof ShepherdError &&
    (err.reason === 'ServiceUnavailable' ||
      err.reason === 'TooManyRequests' ||
      err.reason === 'InternalError' ||
      err.reason === 'Timeout')
  );
}

export function defaultKeyOf(obj: Versioned): string {
  return objectKey(obj.metadata);
}

/**
 * A watch that survives its stream: when the stream ends or the connection fails it resumes from the last
 * resourceVersion it yielded (bookmarks included), so no change is missed or repeated; when that version is
 * too old (Gone) it relists and either hands the list to `onRelist` or yields the difference from what it
 * knew as synthetic ADDED/MODIFIED/DELETED events (the reflector's relist, client-go `Reflector.ListAndWatch`).
 * Ends quietly when the signal aborts; throws errors that waiting cannot fix (Unauthorized, Forbidden, …).
 */
export async function* watchWithResume<T extends Versioned>(
  client: ResourceClient<T>,
  options: WatchResumeOptions<T>,
): AsyncGenerator<WatchEvent<T>> {
  const { signal } = options;
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentLogger;
  const keyOf = options.keyOf ?? defaultKeyOf;
  const backoff = new ReconnectBackoff(
    { initialMs: options.backoff?.initialMs ?? 1_000, maxMs: options.backoff?.maxMs ?? 30_000 },
    options.random ?? systemRandom,
  );
  // Without onRelist or relist we must know every object to compute the delta after a relist.
  const known =
    options.onRelist || options.relist ? undefined : new Map((options.known ?? []).map((o) => [keyOf(o), o]));
  let rv = options.resourceVersion ?? '';
  while (!signal?.aborted) {
    let progressed = false;
    let failure: unknown;
    try {
      const request = {
        ...selectors(options),
        resourceVersion: rv,
        allowWatchBookmarks: options.allowWatchBookmarks ?? true,
      };
      for await (const ev of client.watch(signal ? { ...request, signal } : request)) {
        progressed = true;
        rv = ev.object.metadata.resourceVersion;
        if (known && ev.type !== 'BOOKMARK') track(known, keyOf, ev);
        yield ev;
      }
    } catch (err) {
      failure = err;
    }
    if (signal?.aborted) return;
    if (failure instanceof GoneError) {
      log.info({ resourceVersion: rv }, `watch from resourceVersion ${rv} is too old; relisting`);
      const { relist } = options;
      if (relist) {
        const listed = await untilListed(relist, signal, clock, backoff, log);
        if (listed === undefined) return;
        rv = listed;
        backoff.reset();
        continue;
      }
      const listOptions = signal ? { ...selectors(options), signal } : selectors(options);
      const list = await untilListed(() => client.list(listOptions), signal, clock, backoff, log);
      if (!list) return;
      rv = list.metadata.resourceVersion;
      if (options.onRelist) await options.onRelist(list);
      else yield* diff(known!, keyOf, list.items);
      backoff.reset();
      continue;
    }
    if (failure !== undefined && !isTransientError(failure)) throw failure;
    if (failure !== undefined)
      log.warn({ err: failure, resourceVersion: rv }, 'watch failed; resuming after a backoff');
    if (failure === undefined && progressed) {
      // A stream that delivered something and ended normally (server timeout): resume at once.
      backoff.reset();
      continue;
    }
    // A failure, or a stream that ended without delivering anything: don't spin against the server. A watch the
    // server ended for falling behind (429) resumes from `rv` too, no sooner than its Retry-After.
    if (!(await pause(clock, Math.max(backoff.next(), retryAfterMs(failure)), signal))) return;
  }
}

function retryAfterMs(err: unknown): number {
  const seconds = err instanceof ShepherdError ? err.details?.retryAfterSeconds : undefined;
  return seconds === undefined ? 0 : seconds * 1000;
}

function selectors<T>(options: WatchResumeOptions<T>): { labelSelector?: string; fieldSelector?: string } {
  return {
    ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
    ...(options.fieldSelector === undefined ? {} : { fieldSelector: options.fieldSelector }),
  };
}

/** Runs `list` until it succeeds, waiting out transient errors; undefined once the signal aborts. */
async function untilListed<L>(
  list: () => Promise<L>,
  signal: AbortSignal | undefined,
  clock: Clock,
  backoff: ReconnectBackoff,
  log: Logger,
): Promise<L | undefined> {
  for (;;) {
    try {
      return await list();
    } catch (err) {
      if (signal?.aborted || isAbortError(err)) return undefined;
      if (!isTransientError(err)) throw err;
      log.warn({ err }, 'relist failed; retrying after a backoff');
      if (!(await pause(clock, backoff.next(), signal))) return undefined;
    }
  }
}

/** Sleeps; false when the signal aborted the sleep. */
async function pause(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await clock.sleep(ms, signal);
    return true;
  } catch (err) {
    if (signal?.aborted || isAbortError(err)) return false;
    throw err;
  }
}

function track<T>(known: Map<string, T>, keyOf: (obj: T) => string, ev: WatchEvent<T>): void {
  if (ev.type === 'BOOKMARK') return;
  if (ev.type === 'DELETED') known.delete(keyOf(ev.object));
  else known.set(keyOf(ev.object), ev.object);
}

/** The events that turn `known` into `items`, in key order; updates `known`. */
export function* diff<T extends Versioned>(
  known: Map<string, T>,
  keyOf: (obj: T) => string,
  items: T[],
): Generator<WatchEvent<T>> {
  const fresh = new Map(items.map((o) => [keyOf(o), o]));
  const keys = [...new Set([...known.keys(), ...fresh.keys()])].sort();
  for (const key of keys) {
    const before = known.get(key);
    const after = fresh.get(key);
    if (after === undefined) {
      known.delete(key);
      yield { type: 'DELETED', object: before! };
    } else if (before === undefined) {
      known.set(key, after);
      yield { type: 'ADDED', object: after };
    } else if (before.metadata.resourceVersion !== after.metadata.resourceVersion) {
      known.set(key, after);
      yield { type: 'MODIFIED', object: after };
    }
  }
}
