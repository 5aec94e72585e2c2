import type { ApiClient, Writable } from '../../client/api-client.js';
import { formatTime, type Clock } from '../../core/clock.js';
import type { EventType } from '../../core/event.js';
import { NODE_CONTROLLER_COMPONENT } from '../../core/event-sources.js';
import type { Logger } from '../../core/logger.js';
import type { Verdict } from '../../core/verdict.js';
import { TokenBucket } from './token-bucket.js';

/** Where verdicts go: `client.verdicts` (the API's Verdict resource, docs/verdicts.md). */
export interface VerdictSink {
  create(verdict: Writable<Verdict>): Promise<Verdict>;
}

/** `source.component` of every event this controller writes (upstream's node controller name). */
export const EVENT_SOURCE_COMPONENT = NODE_CONTROLLER_COMPONENT;

/** The object an event is about: a Node, a Zone, a Pod or Deployment (with its namespace), or the controller itself. */
export interface InvolvedObject {
  kind: string;
  name: string;
  namespace?: string | undefined;
  uid?: string | undefined;
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

/** One paced write: an Event or a Verdict. */
type Paced = { event: RecordedEvent; verdict?: undefined } | { verdict: Writable<Verdict>; event?: undefined };

/**
 * Event and Verdict write limits, one pacer for both: a restart over 100k nodes must not queue 100k writes in front
 * of the first decisions, and a rack failure must not flood the store with its verdicts.
 */
export interface EventLimits {
  /** Sustained event and verdict writes per second (default 50). */
  qps: number;
  /** Writes allowed at once after a quiet spell (default 500). */
  burst: number;
  /** Writes waiting beyond this are dropped, Normal events first (default 10,000). */
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

/** What a queued write holds, roughly: its strings (a node name may be 253 characters, a message more). */
function sizeOf(item: Paced): number {
  if (item.verdict !== undefined) return item.verdict.node.length + item.verdict.message.length + 1024;
  const ev = item.event;
  const o = ev.involvedObject;
  return ev.reason.length + ev.message.length + o.kind.length + o.name.length + (o.namespace?.length ?? 0) + 64;
}

export interface EventRecorderDeps {
  client: ApiClient;
  clock: Clock;
  log: Logger;
  host?: string;
  limits?: Partial<EventLimits>;
  /** Verdicts are written here, paced with the events; without a sink `record` does nothing. */
  verdicts?: VerdictSink;
  /** False: events are not written at all, only verdicts (the dry-run controller, docs/verdicts.md#dry-run). */
  writeEvents?: boolean;
  /** `source.component`; default the node controller's (the other controllers name theirs). */
  component?: string;
}

/**
 * `record.EventRecorder` reduced to what the controller needs, and the pacer of its Verdicts. Events go through
 * `client.events.create`; the server folds repeats (count, lastTimestamp), so a dead node never spams. Events and
 * verdicts are best-effort and must never fail or stall a pass: a failed write is logged and dropped, writes are
 * paced by ONE token bucket, and Warning events and verdicts (decisions) go out before Normal events, in the order
 * they were made (a restart's RegisteredNode flood must not delay a NodeNotReady or a verdict). `flush()` writes
 * what the limiter allows now and waits for those writes; the rest goes out on later flushes.
 */
export class EventRecorder {
  readonly #client: ApiClient;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #host: string | undefined;
  readonly #component: string;
  readonly #limits: EventLimits;
  readonly #bucket: TokenBucket;
  readonly #verdicts: VerdictSink | undefined;
  readonly #writeEvents: boolean;
  /** Warning events and verdicts, in the order they were made. */
  readonly #urgent: Paced[] = [];
  readonly #normals: Paced[] = [];
  #inFlight = new Set<Promise<void>>();
  #dropped = 0;
  #droppedVerdicts = 0;
  #queuedBytes = 0;

  constructor(deps: EventRecorderDeps) {
    this.#client = deps.client;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#host = deps.host;
    this.#component = deps.component ?? EVENT_SOURCE_COMPONENT;
    this.#limits = { ...DEFAULT_EVENT_LIMITS, ...deps.limits };
    this.#bucket = new TokenBucket(this.#limits.qps, this.#limits.burst, deps.clock);
    this.#verdicts = deps.verdicts;
    this.#writeEvents = deps.writeEvents ?? true;
  }

  emit(involvedObject: InvolvedObject, type: EventType, reason: string, message: string): void {
    if (!this.#writeEvents) return;
    this.#enqueue({ event: { type, reason, message, involvedObject: { ...involvedObject } } }, type === 'Warning');
  }

  /** Queues a verdict for writing, ahead of Normal events (docs/verdicts.md). */
  record(verdict: Writable<Verdict>): void {
    if (this.#verdicts === undefined) return;
    this.#enqueue({ verdict }, true);
  }

  /** True when `record` writes somewhere (a verdict sink was given). */
  get recordsVerdicts(): boolean {
    return this.#verdicts !== undefined;
  }

  /** Events and verdicts waiting for the rate limiter. */
  get queued(): number {
    return this.#urgent.length + this.#normals.length;
  }

  #enqueue(item: Paced, urgent: boolean): void {
    const size = sizeOf(item);
    while (this.queued >= this.#limits.maxQueued || this.#queuedBytes + size > this.#limits.maxQueuedBytes) {
      // Full: a Warning or a verdict displaces the oldest Normal event; anything else is dropped (and counted).
      const displaced = urgent ? this.#normals.shift() : undefined;
      if (displaced === undefined) {
        if (item.verdict !== undefined) this.#droppedVerdicts++;
        else this.#dropped++;
        return;
      }
      this.#dropped++;
      this.#queuedBytes -= sizeOf(displaced);
    }
    this.#queuedBytes += size;
    (urgent ? this.#urgent : this.#normals).push(item);
    this.#pump();
  }

  async flush(): Promise<void> {
    this.#pump();
    while (this.#inFlight.size > 0) {
      await Promise.race(this.#inFlight);
      this.#pump();
    }
    if (this.#dropped + this.#droppedVerdicts > 0) {
      this.#log.warn(
        { dropped: this.#dropped, droppedVerdicts: this.#droppedVerdicts, queued: this.queued },
        'dropped events: more were emitted than the event rate limit lets through',
      );
      this.#dropped = 0;
      this.#droppedVerdicts = 0;
    }
  }

  #pump(): void {
    while (this.#inFlight.size < this.#limits.maxInFlight && this.queued > 0 && this.#bucket.tryAccept()) {
      const next = (this.#urgent.shift() ?? this.#normals.shift()) as Paced;
      this.#queuedBytes -= sizeOf(next);
      if (next.event) this.#write(next.event);
      else this.#writeVerdict(next.verdict);
    }
  }

  #writeVerdict(v: Writable<Verdict>): void {
    const write: Promise<void> = (this.#verdicts as VerdictSink)
      .create(v)
      .then(
        () => undefined,
        (err: unknown) =>
          this.#log.warn(
            { err, action: v.action, node: v.node, verdict: v.metadata.name },
            'could not write verdict; continuing without it',
          ),
      )
      .finally(() => {
        this.#inFlight.delete(write);
      });
    this.#inFlight.add(write);
  }

  #write(ev: RecordedEvent): void {
    const at = formatTime(this.#clock.now());
    const source =
      this.#host === undefined ? { component: this.#component } : { component: this.#component, host: this.#host };
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
