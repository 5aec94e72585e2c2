/**
 * The batch path of a watch stream. A watch is an AsyncIterable of events (the Store contract), but a commit
 * publishes many changes at once and a watcher wakes once for all of them: stepping through every layer one event
 * at a time costs several promise resolutions per event per watcher, which 100 watchers of a busy kind multiply.
 * A stream built here also hands out what it has ready as one array per wake-up, so the layers that know the
 * path (registry watch, NDJSON streaming) pass arrays along and write each one to the client at once; any other
 * consumer iterates events exactly as before.
 */
const BATCHES: unique symbol = Symbol('event batches');

export interface BatchedIterable<T> extends AsyncIterable<T> {
  /** The same events in the same order, as one non-empty array per wake-up. */
  [BATCHES](): AsyncGenerator<T[]>;
}

/**
 * An event stream whose events are the batches' elements, in order. `batches` must be lazy (a generator): nothing
 * starts before the first pull, and a consumer that stops early returns the generator (its finally blocks run).
 */
export function batchedIterable<T>(batches: () => AsyncGenerator<T[]>): BatchedIterable<T> {
  return {
    [BATCHES]: batches,
    async *[Symbol.asyncIterator](): AsyncGenerator<T> {
      for await (const batch of batches()) {
        for (const ev of batch) yield ev;
      }
    },
  };
}

/** The batches of `events`: its own batch path when it has one, otherwise one batch per event. */
export function eventBatches<T>(events: AsyncIterable<T>): AsyncIterable<T[]> {
  if (hasBatches(events)) return { [Symbol.asyncIterator]: () => events[BATCHES]() };
  return singles(events);
}

/** True when `events` has a batch path, i.e. when `eventBatches` hands out more than one event per step. */
export function hasBatches<T>(events: AsyncIterable<T>): events is BatchedIterable<T> {
  return typeof (events as Partial<BatchedIterable<T>>)[BATCHES] === 'function';
}

async function* singles<T>(events: AsyncIterable<T>): AsyncGenerator<T[]> {
  for await (const ev of events) yield [ev];
}
