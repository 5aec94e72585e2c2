import { createHash } from 'node:crypto';
import { formatTime, parseTime } from '../core/clock.js';
import { formatDuration } from '../core/duration.js';
import { ConflictError, isReason, type StatusCause } from '../core/errors.js';
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
import { checkName, invalidError, parseBody } from './validation.js';

const KIND = 'Event';
/** Concurrent folders of the same Event (several servers, one store) retry this often before giving up. */
const MAX_FOLD_ATTEMPTS = 8;
/** Names tried for one fold key when the first is held by an Event with another key (only a PUT can do that). */
const MAX_FOLD_NAMES = 4;
const HASH_CHARS = 16;
/** The names the server gives Events (foldedEventName): a client may not create one of its own. */
const FOLDED_NAME_RE = new RegExp(`\\.[0-9a-f]{${HASH_CHARS}}$`);
/** How far ahead of the server's clock an Event's timestamps may be: more is a broken clock or a forgery. */
export const MAX_EVENT_CLOCK_SKEW_MS = 10 * 60_000;

type FoldInput = Pick<EventInput, 'involvedObject' | 'reason' | 'type' | 'message' | 'source'>;

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
 * What makes two Events the same occurrence, as Kubernetes' EventCorrelator keys its aggregation: the object
 * (kind, name, namespace, uid), reason, type, message and source (component, host). A fold changes only count and
 * lastTimestamp, so everything else an Event says must be in the key.
 */
function foldKey(e: FoldInput): string {
  return JSON.stringify([
    e.involvedObject.kind,
    e.involvedObject.name,
    e.involvedObject.uid ?? '',
    e.reason,
    e.type,
    e.message,
    e.source.component,
    e.source.host ?? '',
    // Last, and only when set, so the names of Events about cluster-scoped objects stay what they were.
    ...(e.involvedObject.namespace === undefined ? [] : [e.involvedObject.namespace]),
  ]);
}

/**
 * The deterministic name of a folded Event: `<involvedObject.name>.<hash of the fold key>`. Every server
 * computes the same name for the same key, so folding needs no in-memory index and works across servers sharing
 * one store (Kubernetes' EventCorrelator keeps an LRU per process). `attempt` > 0 gives the next names to try
 * when an Event with another key holds the first.
 */
export function foldedEventName(input: FoldInput, attempt = 0): string {
  const key = attempt === 0 ? foldKey(input) : `${foldKey(input)}#${attempt}`;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, HASH_CHARS);
  return `${namePrefix(input.involvedObject.name)}.${hash}`;
}

/** Whether `name` has the form of a server-given Event name (which a client may not choose). */
export function isFoldedEventName(name: string): boolean {
  return FOLDED_NAME_RE.test(name);
}

function withinFoldWindow(existing: Event, now: number): boolean {
  const last = parseTime(existing.lastTimestamp);
  return Number.isFinite(last) && now - last <= EVENT_FOLD_WINDOW_MS;
}

function isRetryable(err: unknown): boolean {
  return isReason(err, 'Conflict') || isReason(err, 'AlreadyExists') || isReason(err, 'NotFound');
}

/**
 * Timestamps far ahead of the server's clock would keep an Event folding (and, before expiry went by the
 * server's own write time, alive) for as long as the writer liked. Past times only shorten an Event's life.
 */
function checkTimestamps(input: EventInput, now: number): void {
  const causes: StatusCause[] = [];
  for (const field of ['firstTimestamp', 'lastTimestamp'] as const) {
    const value = input[field];
    if (value === undefined) continue;
    const ahead = parseTime(value) - now;
    if (ahead > MAX_EVENT_CLOCK_SKEW_MS) {
      causes.push({
        field,
        message: `${value} is ${formatDuration(ahead)} ahead of the server's clock (${formatTime(now)}); at most ${formatDuration(MAX_EVENT_CLOCK_SKEW_MS)} is accepted: check the writer's clock`,
      });
    }
  }
  const { firstTimestamp: first, lastTimestamp: last } = input;
  if (first !== undefined && last !== undefined && parseTime(first) > parseTime(last)) {
    causes.push({ field: 'firstTimestamp', message: `must not be after lastTimestamp (${last})` });
  }
  if (causes.length > 0) throw invalidError(KIND, input.metadata?.name, causes);
}

const TAKEN = Symbol('taken');

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

  /**
   * With metadata.name: a plain create (409 when taken); names of the server's form are refused, so no client
   * can take the name the server will fold another object's Events into. Without: folded into a recent repeat.
   */
  async create(body: unknown): Promise<Event> {
    const input = parseBody(EventInputSchema, body, KIND);
    const now = this.#ctx.clock.now();
    checkTimestamps(input, now);
    const name = input.metadata?.name;
    if (name === undefined || name === '') return this.#fold(input, now);
    if (isFoldedEventName(name)) {
      throw invalidError(KIND, name, [
        {
          field: 'metadata.name',
          message: `names ending in "." and ${HASH_CHARS} hex digits are the names the server gives Events: leave metadata.name out to have the server name (and fold) the Event, or choose another name`,
        },
      ]);
    }
    return this.#ctx.store.create('events', this.#build(input, name, now));
  }

  async update(name: string, body: unknown): Promise<Event> {
    const input = parseBody(EventInputSchema, body, KIND, { update: true });
    checkName(KIND, name, input.metadata?.name);
    checkTimestamps(input, this.#ctx.clock.now());
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
   * Folds into the Event named after the fold key; when an Event with another key holds that name (a PUT changed
   * it), the next name is tried: a fold never changes what an existing Event says except its count and time.
   */
  async #fold(input: EventInput, now: number): Promise<Event> {
    for (let attempt = 0; attempt < MAX_FOLD_NAMES; attempt++) {
      const folded = await this.#foldInto(foldedEventName(input, attempt), input, now);
      if (folded !== TAKEN) return folded;
    }
    const name = foldedEventName(input);
    throw new ConflictError(
      'events',
      name,
      `every name for this Event (${name} and ${MAX_FOLD_NAMES - 1} more) is held by an Event about something else: delete those Events or name this one`,
    );
  }

  /**
   * get → update-with-resourceVersion, or create; a lost race (Conflict, AlreadyExists, NotFound) re-reads and
   * tries again, so two servers folding the same repeat both count it. TAKEN: `name` holds another key's Event.
   */
  async #foldInto(name: string, input: EventInput, now: number): Promise<Event | typeof TAKEN> {
    const { store } = this.#ctx;
    const key = foldKey(input);
    for (let attempt = 0; attempt < MAX_FOLD_ATTEMPTS; attempt++) {
      let existing: Event | undefined;
      try {
        existing = await store.get('events', name);
      } catch (err) {
        if (!isReason(err, 'NotFound')) throw err;
      }
      if (existing !== undefined && foldKey(existing) !== key) return TAKEN;
      try {
        if (existing === undefined) return await store.create('events', this.#build(input, name, now));
        const rv = existing.metadata.resourceVersion;
        if (withinFoldWindow(existing, now)) {
          const folded: Event = {
            ...existing,
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
