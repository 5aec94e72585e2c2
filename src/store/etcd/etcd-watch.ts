import type { IDuplexStream, IEvent, IWatchRequest, IWatchResponse, WatchClient } from 'etcd3';
import { waitAtMost, type Clock } from '../../core/clock.js';
import { ServiceUnavailableError, tooOldResourceVersionError, watchTooSlowError } from '../../core/errors.js';
import type { AnyObject, Resource } from '../../core/kinds.js';
import { formatByteSize } from '../../core/limits.js';
import { checkWatchStart, type StoreEvent, type WatchOptions } from '../store.js';
import { decodeKv, decodeObject, prefixRangeEnd, storageError, type EtcdKeys } from './etcd-codec.js';

/** What one watch needs from the EtcdStore. */
export interface EtcdWatchSource {
  watchClient: WatchClient;
  keys: EtcdKeys;
  clock: Clock;
  endpoints: readonly string[];
  compactedRevision(): number;
  /** etcd told us (on a cancelled watch) that history up to `revision` is compacted. */
  noteCompacted(revision: number): void;
  /** Registers a stopper that store.close() calls; returns the unregister function. */
  track(stop: () => void): () => void;
  /** Every object a watch yields passes here (the store's encodedJson). */
  handOut(obj: AnyObject): AnyObject;
  /** Bytes of received changes that may wait for the watcher before its watch ends (watchTooSlowError). */
  maxUnsentBytes: number;
}

type Delivery = { res: IWatchResponse } | { err: Error };

/** The bytes a response holds: the values of its events (a delete carries the previous value). */
function responseBytes(d: Delivery): number {
  if (!('res' in d)) return 0;
  let n = 0;
  for (const ev of d.res.events) n += (ev.kv.value?.length ?? 0) + (ev.prev_kv?.value?.length ?? 0);
  return n;
}

/**
 * Responses of one gRPC watch stream, buffered until the generator takes them: etcd sends as fast as it can, so
 * the buffer is bounded in bytes; past `maxBytes` it is dropped and the watch ends (the watcher resumes).
 */
class Inbox {
  items: Delivery[] = [];
  stopped = false;
  overflowed = false;
  #bytes = 0;
  #waiter: (() => void) | undefined;

  constructor(
    readonly maxBytes: number,
    readonly onOverflow: () => void,
  ) {}

  push(d: Delivery): void {
    if (this.stopped) return;
    const size = responseBytes(d);
    // As the sqlite fan-out (watch-hub.ts): only responses left untaken count against one that arrives.
    if (this.maxBytes > 0 && this.items.length > 0 && this.#bytes + size > this.maxBytes) {
      this.overflowed = true;
      this.items = [];
      this.#bytes = 0;
      this.stop();
      this.onOverflow();
      return;
    }
    this.#bytes += size;
    this.items.push(d);
    this.#wake();
  }

  stop(): void {
    this.stopped = true;
    this.#wake();
  }

  take(): Delivery[] {
    const out = this.items;
    this.items = [];
    this.#bytes = 0;
    return out;
  }

  wait(): Promise<void> {
    if (this.items.length > 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }
}

function toStoreEvent(src: EtcdWatchSource, ev: IEvent): StoreEvent<AnyObject> {
  const revision = Number(ev.kv.mod_revision);
  if (ev.type === 'Delete') {
    // A delete's kv carries no value: the last state comes from prev_kv, stamped with the deletion revision.
    return { type: 'DELETED', object: src.handOut(decodeObject(ev.prev_kv.value, revision)), revision };
  }
  const type = ev.kv.create_revision === ev.kv.mod_revision ? 'ADDED' : 'MODIFIED';
  return { type, object: src.handOut(decodeKv(ev.kv)), revision };
}

/**
 * Every change of `resource` after `from`, from one etcd watch (start_revision from+1, prev_kv for deletes).
 * etcd replays history then streams live changes, in revision order, with no hand-over of our own.
 *
 * Bookmarks: when idle for progressIntervalMs we send a WatchProgressRequest. etcd before 3.4.25/3.5.8 may answer
 * it ahead of events already queued for the stream (https://github.com/etcd-io/etcd/issues/15220), so a progress
 * revision is only turned into a BOOKMARK once a second request, sent after the first answer arrived, reports the
 * same revision with no event in between: the store did not move, and whatever was queued at that revision has
 * been flushed.
 */
export async function* etcdWatch(
  src: EtcdWatchSource,
  resource: Resource,
  from: number,
  options: WatchOptions = {},
): AsyncGenerator<StoreEvent<AnyObject>> {
  checkWatchStart(from);
  const { signal } = options;
  if (signal?.aborted) return;
  if (from < src.compactedRevision()) throw tooOldResourceVersionError(from, src.compactedRevision());
  const sent = { last: from };
  const tooSlow = (): Error =>
    watchTooSlowError(resource, `more than ${formatByteSize(src.maxUnsentBytes)}`, sent.last);
  const inbox = new Inbox(src.maxUnsentBytes, () => options.onOverflow?.(tooSlow()));
  const onAbort = (): void => inbox.stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  const untrack = src.track(onAbort);
  let stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined;
  try {
    try {
      stream = await src.watchClient.watch();
    } catch (err) {
      if (inbox.stopped) return; // aborted or the store closed while connecting
      throw storageError(err, src.endpoints);
    }
    stream.on('data', (res) => inbox.push({ res }));
    stream.on('error', (err) => inbox.push({ err }));
    stream.on('end', () => inbox.push({ err: new Error('etcd ended the watch stream') }));
    const prefix = Buffer.from(src.keys.kind(resource));
    stream.write({
      create_request: {
        key: prefix,
        range_end: prefixRangeEnd(prefix),
        start_revision: from + 1,
        prev_kv: true,
        progress_notify: true,
      },
    });
    yield* deliver(src, resource, sent, stream, inbox, options.progressIntervalMs);
    if (inbox.overflowed) throw tooSlow();
  } finally {
    signal?.removeEventListener('abort', onAbort);
    untrack();
    inbox.stop();
    if (stream) {
      // end() first: etcd3 marks the host failed on an error while the stream is writable, and cancel() errors.
      stream.end();
      stream.cancel();
    }
  }
}

async function* deliver(
  src: EtcdWatchSource,
  resource: Resource,
  sent: { last: number },
  stream: IDuplexStream<IWatchRequest, IWatchResponse>,
  inbox: Inbox,
  progressIntervalMs: number | undefined,
): AsyncGenerator<StoreEvent<AnyObject>> {
  const { clock } = src;
  let lastYield = clock.monotonic();
  let awaitingProgress = false;
  let candidate: number | undefined;
  for (;;) {
    if (inbox.stopped) return;
    for (const d of inbox.take()) {
      if (inbox.stopped) return;
      if ('err' in d) throw storageError(d.err, src.endpoints);
      const { res } = d;
      if (res.canceled) throw cancelled(src, resource, sent.last, res);
      if (res.created) continue;
      if (res.events.length > 0) {
        for (const ev of res.events) {
          const e = toStoreEvent(src, ev);
          yield e;
          sent.last = e.revision;
        }
        lastYield = clock.monotonic();
        awaitingProgress = false;
        candidate = undefined;
        continue;
      }
      if (!awaitingProgress) continue; // etcd's own periodic progress notify: we bookmark on our schedule
      const revision = Number(res.header.revision);
      if (candidate === revision) {
        yield { type: 'BOOKMARK', revision: Math.max(revision, sent.last) };
        lastYield = clock.monotonic();
        awaitingProgress = false;
        candidate = undefined;
      } else {
        candidate = revision;
        stream.write({ progress_request: {} });
      }
    }
    if (inbox.stopped) return;
    if (progressIntervalMs === undefined || progressIntervalMs <= 0 || awaitingProgress) {
      await inbox.wait();
      continue;
    }
    const idle = clock.monotonic() - lastYield;
    if (idle >= progressIntervalMs) {
      awaitingProgress = true;
      stream.write({ progress_request: {} });
      continue;
    }
    await waitAtMost(clock, inbox.wait(), progressIntervalMs - idle);
  }
}

function cancelled(src: EtcdWatchSource, resource: Resource, last: number, res: IWatchResponse): Error {
  const compacted = Number(res.compact_revision);
  if (compacted > 0) {
    src.noteCompacted(compacted);
    return tooOldResourceVersionError(last, compacted);
  }
  return new ServiceUnavailableError(
    `etcd cancelled the watch of ${resource} (${res.cancel_reason || 'no reason given'}): watch again from resource version ${last}`,
  );
}
