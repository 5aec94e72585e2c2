import type { ApiClient } from '../../client/api-client.js';
import { formatTime, type Clock } from '../../core/clock.js';
import type { EventType } from '../../core/event.js';
import type { Logger } from '../../core/logger.js';

/** `source.component` of every event this controller writes (upstream's node controller name). */
export const EVENT_SOURCE_COMPONENT = 'node-controller';

/** The object an event is about: a Node, a Zone, or the controller itself. */
export interface InvolvedObject {
  kind: string;
  name: string;
  uid?: string;
}

/** The controller itself, for events about the whole control loop (MasterDisruption, ControllerPaused). */
export const CONTROLLER_OBJECT: InvolvedObject = Object.freeze({ kind: 'Controller', name: 'node-lifecycle-controller' });

export interface RecordedEvent {
  type: EventType;
  reason: string;
  message: string;
  involvedObject: InvolvedObject;
}

/**
 * `record.EventRecorder` reduced to what the controller needs. Writes go through `client.events.create`; the
 * server folds repeats (count, lastTimestamp), so a dead node never spams. A failed write is logged and
 * dropped: events are best-effort and must never fail a pass. `flush()` waits for writes in flight (the pass
 * awaits it so tests and shutdown see every event).
 */
export class EventRecorder {
  readonly #client: ApiClient;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #host: string | undefined;
  #inFlight: Promise<void>[] = [];

  constructor(deps: { client: ApiClient; clock: Clock; log: Logger; host?: string }) {
    this.#client = deps.client;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#host = deps.host;
  }

  emit(involvedObject: InvolvedObject, type: EventType, reason: string, message: string): void {
    const at = formatTime(this.#clock.now());
    const source = this.#host === undefined ? { component: EVENT_SOURCE_COMPONENT } : { component: EVENT_SOURCE_COMPONENT, host: this.#host };
    const write = this.#client.events
      .create({ metadata: {}, type, reason, message, involvedObject: { ...involvedObject }, source, count: 1, firstTimestamp: at, lastTimestamp: at })
      .then(
        () => undefined,
        (err: unknown) => this.#log.warn({ err, reason, object: involvedObject.name }, 'could not write event; continuing without it'),
      );
    this.#inFlight.push(write);
  }

  async flush(): Promise<void> {
    while (this.#inFlight.length > 0) {
      const batch = this.#inFlight;
      this.#inFlight = [];
      await Promise.all(batch);
    }
  }
}
