import type { ApiClient } from '../../client/api-client.js';
import { formatTime, type Clock } from '../../core/clock.js';
import type { EventType } from '../../core/event.js';
import { NODE_CONTROLLER_COMPONENT } from '../../core/event-sources.js';
import type { Logger } from '../../core/logger.js';
import { TokenBucket } from './token-bucket.js';

/** `source.component` of every event this controller writes (upstream's node controller name). */
export const EVENT_SOURCE_COMPONENT = NODE_CONTROLLER_COMPONENT;

/** The object an event is about: a Node, a Zone, or the controller itself. */
export interface InvolvedObject {
  kind: string;
  name: string;
  uid?: string;
}

/** The controller itself, for events about the whole control loop (MasterDisruption, ControllerPaused). */
export const CONTROLLER_OBJECT: InvolvedObject = Object.freeze({
  kind: 'Controller',
  name: 'node-lifecycle-controller',
});

export interface RecordedEvent {
  type: EventType;
  reason: string;
  message: string;
  involvedObject: InvolvedObject;
}

/** Event write limits: a restart over 100k nodes must not queue 100k writes in front of the first verdicts. */
export interface EventLimits {
  /** Sustained event writes per second (default 50). */
  qps: number;
  /** Writes allowed at once after a quiet spell (default 500). */
  burst: number;
  /** Events waiting beyond this are dropped, Normal ones first (default 10,000). */
  maxQueued: number;
  /** Bytes (reasons, messages, object names) waiting beyond this are dropped the same way (default 8 MiB). */
  maxQueuedBytes: number;
  /** Writes in flight at once (default 16). */
  maxInFlight: number;
}

export const DEFAULT_EVENT_LIMITS: EventLimits = {
  qps: 50,
  burst: 500,
  maxQueued: 10_000,
  maxQueuedBytes: 8 * 1024 * 1024,
  maxInFlight: 16,
};

/** What a queued event holds, roughly: its strings (a node name may be 253 characters, a message more). */
function sizeOf(ev: RecordedEvent): number {
  return ev.reason.length + ev.message.length + ev.involvedObject.kind.length + ev.involvedObject.name.length + 64;
}

/**
 * `record.EventRecorder` reduced to what the controller needs. Writes go through `client.events.create`; the
 * server folds repeats (count, lastTimestamp), so a dead node never spams. Events are best-effort and must
 * never fail or stall a pass: a failed write is logged and dropped, writes are paced by a token bucket, and
 * Warning events go out before Normal ones (a restart's RegisteredNode flood must not delay a NodeNotReady).
 * `flush()` writes what the limiter allows now and waits for those writes; the rest goes out on later flushes.
 */
export class EventRecorder {
  readonly #client: ApiClient;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #host: string | undefined;
  readonly #limits: EventLimits;
  readonly #bucket: TokenBucket;
  readonly #warnings: RecordedEvent[] = [];
  readonly #normals: RecordedEvent[] = [];
  #inFlight = new Set<Promise<void>>();
  #dropped = 0;
  #queuedBytes = 0;

  constructor(deps: { client: ApiClient; clock: Clock; log: Logger; host?: string; limits?: Partial<EventLimits> }) {
    this.#client = deps.client;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#host = deps.host;
    this.#limits = { ...DEFAULT_EVENT_LIMITS, ...deps.limits };
    this.#bucket = new TokenBucket(this.#limits.qps, this.#limits.burst, deps.clock);
  }

  emit(involvedObject: InvolvedObject, type: EventType, reason: string, message: string): void {
    const ev: RecordedEvent = { type, reason, message, involvedObject: { ...involvedObject } };
    const size = sizeOf(ev);
    while (this.queued >= this.#limits.maxQueued || this.#queuedBytes + size > this.#limits.maxQueuedBytes) {
      // Full: a Warning displaces the oldest Normal events; anything else is dropped (and counted).
      const displaced = type === 'Warning' ? this.#normals.shift() : undefined;
      this.#dropped++;
      if (displaced === undefined) return;
      this.#queuedBytes -= sizeOf(displaced);
    }
    this.#queuedBytes += size;
    (type === 'Warning' ? this.#warnings : this.#normals).push(ev);
    this.#pump();
  }

  /** Events waiting for the rate limiter. */
  get queued(): number {
    return this.#warnings.length + this.#normals.length;
  }

  async flush(): Promise<void> {
    this.#pump();
    while (this.#inFlight.size > 0) {
      await Promise.race(this.#inFlight);
      this.#pump();
    }
    if (this.#dropped > 0) {
      this.#log.warn(
        { dropped: this.#dropped, queued: this.queued },
        'dropped events: more were emitted than the event rate limit lets through',
      );
      this.#dropped = 0;
    }
  }

  #pump(): void {
    while (this.#inFlight.size < this.#limits.maxInFlight && this.queued > 0 && this.#bucket.tryAccept()) {
      const ev = (this.#warnings.shift() ?? this.#normals.shift()) as RecordedEvent;
      this.#queuedBytes -= sizeOf(ev);
      this.#write(ev);
    }
  }

  #write(ev: RecordedEvent): void {
    const at = formatTime(this.#clock.now());
    const source =
      this.#host === undefined
        ? { component: EVENT_SOURCE_COMPONENT }
        : { component: EVENT_SOURCE_COMPONENT, host: this.#host };
    const write: Promise<void> = this.#client.events
      .create({ metadata: {}, ...ev, source, count: 1, firstTimestamp: at, lastTimestamp: at })
      .then(
        () => undefined,
        (err: unknown) =>
          this.#log.warn(
            { err, reason: ev.reason, object: ev.involvedObject.name },
            'could not write event; continuing without it',
          ),
      )
      .finally(() => {
        this.#inFlight.delete(write);
      });
    this.#inFlight.add(write);
  }
}
