import { waitAtMost, type Clock } from '../../core/clock.js';
import { tooOldResourceVersionError, watchTooSlowError } from '../../core/errors.js';
import type { AnyObject, Resource } from '../../core/kinds.js';
import { formatByteSize } from '../../core/limits.js';
import { checkWatchStart, type StoreEvent, type WatchOptions } from '../store.js';
import { batchedIterable, type BatchedIterable } from '../event-batches.js';
import type { Subscription, WatchHub } from '../watch-hub.js';
import type { ChangeEntry } from './write-batch.js';

/** Rows read from the change log per step of a replay, so a long replay never holds everything in memory. */
const REPLAY_CHUNK = 500;

/** What a watch needs from the store; everything here is synchronous and reads committed state. */
export interface WatchSource {
  hub: WatchHub<ChangeEntry>;
  clock: Clock;
  /** Events a watcher may have waiting before it is ended (watchTooSlowError). */
  queueCapacity: number;
  /** Bytes a watcher may have waiting before it is ended; 0: no byte limit. */
  queueBytes: number;
  /** Logged changes of `resource` with after < revision <= upTo, oldest first, at most `limit`. */
  readChanges(resource: Resource, after: number, upTo: number, limit: number): ChangeEntry[];
  compactedRevision(): number;
  currentRevision(): number;
  /** True once the store closed: a watch first iterated after that ends at once. */
  closed(): boolean;
}

/**
 * Every change of `resource` after `from`: a replay from the change log, then live events from the fan-out.
 * The hand-over is race-free because we subscribe before noting the newest revision and reading the replay
 * (commits publish synchronously, so everything above that revision lands in the subscription and
 * everything up to it is in the log); live events not above the last delivered revision are dropped.
 * Its batch path hands out a replay chunk or everything a wake-up found queued as one array.
 */
export function sqliteWatch(
  src: WatchSource,
  resource: Resource,
  from: number,
  options: WatchOptions = {},
): BatchedIterable<StoreEvent<AnyObject>> {
  return batchedIterable(() => watchBatches(src, resource, from, options));
}

async function* watchBatches(
  src: WatchSource,
  resource: Resource,
  from: number,
  options: WatchOptions,
): AsyncGenerator<StoreEvent<AnyObject>[]> {
  checkWatchStart(from);
  const { signal } = options;
  if (signal?.aborted || src.closed()) return;
  // The newest revision handed to the watcher (shared with liveBatches): where a cut-off watcher resumes.
  const sent = { last: from };
  const sub = src.hub.subscribe(resource, {
    events: src.queueCapacity,
    bytes: src.queueBytes,
    onOverflow: () => options.onOverflow?.(tooSlow(src, resource, sent.last)),
  });
  const onAbort = (): void => sub.end();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const oldest = src.compactedRevision();
    if (from < oldest) throw tooOldResourceVersionError(from, oldest);
    const upTo = src.currentRevision();
    while (sent.last < upTo && !sub.ended) {
      // A replay slower than the retention window could see its next rows compacted away under it.
      if (src.compactedRevision() > sent.last) throw tooOldResourceVersionError(sent.last, src.compactedRevision());
      const chunk = src.readChanges(resource, sent.last, upTo, REPLAY_CHUNK);
      if (chunk.length === 0) break;
      yield chunk.map((e) => e.event);
      sent.last = (chunk[chunk.length - 1] as ChangeEntry).revision;
    }
    sent.last = Math.max(sent.last, upTo);
    yield* liveBatches(src, resource, sub, sent, options.progressIntervalMs);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    sub.end();
  }
}

function tooSlow(src: WatchSource, resource: Resource, last: number): Error {
  const what =
    src.queueBytes > 0
      ? `more than ${formatByteSize(src.queueBytes)} or ${src.queueCapacity} events`
      : `more than ${src.queueCapacity} events`;
  return watchTooSlowError(resource, what, last);
}

async function* liveBatches(
  src: WatchSource,
  resource: Resource,
  sub: Subscription<ChangeEntry>,
  sent: { last: number },
  progressIntervalMs: number | undefined,
): AsyncGenerator<StoreEvent<AnyObject>[]> {
  const { clock } = src;
  let lastYield = clock.monotonic();
  for (;;) {
    if (sub.overflowed) throw tooSlow(src, resource, sent.last);
    const taken = sub.take();
    if (taken.length > 0) {
      if (sub.ended && !sub.overflowed) return;
      const batch: StoreEvent<AnyObject>[] = [];
      let last = sent.last;
      for (const e of taken) {
        if (e.revision <= last) continue;
        batch.push(e.event);
        last = e.revision;
      }
      if (batch.length > 0) {
        yield batch;
        // Only once the consumer asks for more: a watcher cut off while still sending it resumes before it.
        sent.last = last;
        lastYield = clock.monotonic();
      }
      continue;
    }
    if (sub.ended) return;
    if (progressIntervalMs === undefined || progressIntervalMs <= 0) {
      await sub.wait();
      continue;
    }
    const idle = clock.monotonic() - lastYield;
    if (idle >= progressIntervalMs) {
      // The queue is empty and commits publish synchronously: every change up to the current revision is out.
      yield [{ type: 'BOOKMARK', revision: Math.max(src.currentRevision(), sent.last) }];
      lastYield = clock.monotonic();
      continue;
    }
    await waitAtMost(clock, sub.wait(), progressIntervalMs - idle);
  }
}
