import { createHash } from 'node:crypto';
import { formatTime, parseTime } from '../core/clock.js';
import { ConflictError, isReason } from '../core/errors.js';
import { EVENT_FOLD_WINDOW_MS, EventInputSchema, type Event, type EventInput } from '../core/event.js';
import {
  deleteObject,
  listObjects,
  newMeta,
  replacedMeta,
  replaceObject,
  type DeleteOptions,
  type ListOptions,
  type ListResponse,
  type RegistryContext,
} from './registry-context.js';
import { checkName, parseBody } from './validation.js';

const KIND = 'Event';
/** Concurrent folders of the same Event (several servers, one store) retry this often before giving up. */
const MAX_FOLD_ATTEMPTS = 8;
const HASH_CHARS = 16;

/** Makes an arbitrary involvedObject.name usable as the start of an RFC 1123 object name. */
function namePrefix(name: string): string {
  const max = 253 - HASH_CHARS - 1;
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-')
    .slice(0, max)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return cleaned === '' ? 'event' : cleaned;
}

/**
 * The deterministic name of a folded Event: `<involvedObject.name>.<hash of the fold tuple>`. Every server
 * computes the same name for the same (kind, name, reason, type, message), so folding needs no in-memory
 * index and works across servers sharing one store (Kubernetes' EventCorrelator keeps an LRU per process).
 */
export function foldedEventName(input: Pick<EventInput, 'involvedObject' | 'reason' | 'type' | 'message'>): string {
  const tuple = JSON.stringify([
    input.involvedObject.kind,
    input.involvedObject.name,
    input.reason,
    input.type,
    input.message,
  ]);
  const hash = createHash('sha256').update(tuple).digest('hex').slice(0, HASH_CHARS);
  return `${namePrefix(input.involvedObject.name)}.${hash}`;
}

function withinFoldWindow(existing: Event, now: number): boolean {
  const last = parseTime(existing.lastTimestamp);
  return Number.isFinite(last) && now - last <= EVENT_FOLD_WINDOW_MS;
}

function isRetryable(err: unknown): boolean {
  return isReason(err, 'Conflict') || isReason(err, 'AlreadyExists') || isReason(err, 'NotFound');
}

/** Events: server-named creates fold repeats (count, lastTimestamp) as Kubernetes' event aggregation does. */
export class EventRegistry {
  readonly #ctx: RegistryContext;

  constructor(ctx: RegistryContext) {
    this.#ctx = ctx;
  }

  get(name: string): Promise<Event> {
    return this.#ctx.store.get('events', name);
  }

  list(options?: ListOptions): Promise<ListResponse<Event>> {
    return listObjects(this.#ctx, 'events', { ...options, namespace: undefined });
  }

  /** With metadata.name: a plain create (409 when taken). Without: folded into a recent repeat, if any. */
  async create(body: unknown): Promise<Event> {
    const input = parseBody(EventInputSchema, body, KIND);
    const now = this.#ctx.clock.now();
    const name = input.metadata?.name;
    if (name !== undefined && name !== '') return this.#ctx.store.create('events', this.#build(input, name, now));
    return this.#fold(input, now);
  }

  async update(name: string, body: unknown): Promise<Event> {
    const input = parseBody(EventInputSchema, body, KIND, { update: true });
    checkName(KIND, name, input.metadata?.name);
    return replaceObject(this.#ctx, 'events', name, input.metadata?.resourceVersion as string, (current) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: replacedMeta(current.metadata, input.metadata ?? {}),
      type: input.type,
      reason: input.reason,
      message: input.message,
      involvedObject: input.involvedObject,
      source: input.source,
      count: input.count ?? current.count,
      firstTimestamp: input.firstTimestamp ?? current.firstTimestamp,
      lastTimestamp: input.lastTimestamp ?? current.lastTimestamp,
    }));
  }

  delete(name: string, options?: DeleteOptions): Promise<Event> {
    return deleteObject(this.#ctx, 'events', name, options);
  }

  #build(input: EventInput, name: string, now: number): Event {
    const last = input.lastTimestamp ?? formatTime(now);
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: newMeta(this.#ctx, { ...input.metadata, name }),
      type: input.type,
      reason: input.reason,
      message: input.message,
      involvedObject: input.involvedObject,
      source: input.source,
      count: input.count ?? 1,
      firstTimestamp: input.firstTimestamp ?? last,
      lastTimestamp: last,
    };
  }

  /**
   * get → update-with-resourceVersion, or create; a lost race (Conflict, AlreadyExists, NotFound) re-reads and
   * tries again, so two servers folding the same repeat both count it.
   */
  async #fold(input: EventInput, now: number): Promise<Event> {
    const { store } = this.#ctx;
    const name = foldedEventName(input);
    for (let attempt = 0; attempt < MAX_FOLD_ATTEMPTS; attempt++) {
      let existing: Event | undefined;
      try {
        existing = await store.get('events', name);
      } catch (err) {
        if (!isReason(err, 'NotFound')) throw err;
      }
      try {
        if (existing === undefined) return await store.create('events', this.#build(input, name, now));
        const rv = existing.metadata.resourceVersion;
        if (withinFoldWindow(existing, now)) {
          const folded: Event = {
            ...existing,
            involvedObject: input.involvedObject,
            source: input.source,
            count: existing.count + 1,
            lastTimestamp: input.lastTimestamp ?? formatTime(now),
          };
          return await store.update('events', folded, rv);
        }
        // The window has passed: the old Event is history, and the repeat starts a new one (new uid, count 1).
        await store.delete('events', name, { expectedResourceVersion: rv });
        return await store.create('events', this.#build(input, name, now));
      } catch (err) {
        if (!isRetryable(err)) throw err;
      }
    }
    throw new ConflictError(
      'events',
      name,
      `Event "${name}" is being folded by too many writers at once; retry the request`,
    );
  }
}
