import type { Store } from '../store/store.js';

/**
 * The NDJSON lines of watch events, `JSON.stringify(ev) + '\n'`, kept per shared event object: registry events
 * are `{type, object}` whose object every watcher of the change shares (the store's watch cache), so one commit
 * watched by 100 clients is serialised once, from the JSON text the store kept, and encoded to bytes once (a
 * string written to a stream is copied into a new Buffer on every write).
 */
export class WatchLines {
  readonly #store: Pick<Store, 'encodedJson'>;
  readonly #lines = new WeakMap<object, { type: unknown; line: string; chunk?: Buffer }>();
  /** The bytes of the last few batches, newest last: every watcher of a kind takes the same commit batch. */
  readonly #batches: { events: readonly unknown[]; chunk: Buffer }[] = [];
  /** The HTTP/1.1 chunk frames of the last few chunks sent, newest last (see `frame`). */
  readonly #frames: { data: Buffer; frame: Buffer }[] = [];

  constructor(store: Pick<Store, 'encodedJson'>) {
    this.#store = store;
  }

  /** `line(ev)` as bytes, shared by every watcher of the same change. */
  chunk(ev: unknown): Buffer {
    const line = this.line(ev);
    const cached =
      typeof ev === 'object' && ev !== null ? this.#lines.get((ev as { object?: object }).object ?? ev) : undefined;
    if (cached === undefined || cached.line !== line) return Buffer.from(line);
    cached.chunk ??= Buffer.from(line);
    return cached.chunk;
  }

  /**
   * The lines of a batch of events as one Buffer. The watchers that take the same events (each has its own
   * array of its own event objects, sharing the changed objects) share the Buffer of the first that built it.
   */
  batchChunk(events: readonly unknown[]): Buffer {
    if (events.length === 1) return this.chunk(events[0]);
    const hit = this.#batches.find((b) => sameEvents(b.events, events));
    if (hit !== undefined) return hit.chunk;
    let text = '';
    for (const ev of events) text += this.line(ev);
    const chunk = Buffer.from(text);
    if (events.every(isShareable)) {
      if (this.#batches.length === RECENT_BATCHES) this.#batches.shift();
      this.#batches.push({ events, chunk });
    }
    return chunk;
  }

  /**
   * `data` as one chunk of a chunked HTTP/1.1 body (`<length in hex>\r\n<data>\r\n`, RFC 9112 section 7.1), built
   * once for every watcher that sends the same Buffer: they all take the same commit's batch. `data` is not empty
   * (an empty chunk ends the body).
   */
  frame(data: Buffer): Buffer {
    const hit = this.#frames.find((f) => f.data === data);
    if (hit !== undefined) return hit.frame;
    const head = `${data.length.toString(16)}\r\n`;
    const frame = Buffer.allocUnsafe(head.length + data.length + 2);
    frame.write(head, 0, 'latin1');
    data.copy(frame, head.length);
    frame.write('\r\n', head.length + data.length, 'latin1');
    if (this.#frames.length === RECENT_BATCHES) this.#frames.shift();
    this.#frames.push({ data, frame });
    return frame;
  }

  /** The NDJSON line of a watch event. */
  line(ev: unknown): string {
    if (typeof ev !== 'object' || ev === null) return `${JSON.stringify(ev)}\n`;
    const { type, object } = ev as { type?: unknown; object?: unknown };
    if (typeof type !== 'string' || typeof object !== 'object' || object === null || !hasOnlyTypeAndObject(ev)) {
      return `${JSON.stringify(ev)}\n`;
    }
    const cached = this.#lines.get(object);
    if (cached !== undefined && cached.type === type) return cached.line;
    const json = this.#store.encodedJson(object);
    const line = json === undefined ? `${JSON.stringify(ev)}\n` : `{"type":${JSON.stringify(type)},"object":${json}}\n`;
    this.#lines.set(object, { type, line });
    return line;
  }
}

/** Batches (and frames) remembered by WatchLines.batchChunk (and frame): commits of a few kinds interleave, each fans out to many. */
const RECENT_BATCHES = 4;

/** An event whose line is fixed by its type and its (shared, immutable) object alone. */
function isShareable(ev: unknown): boolean {
  if (typeof ev !== 'object' || ev === null) return false;
  const { type, object } = ev as { type?: unknown; object?: unknown };
  return typeof type === 'string' && typeof object === 'object' && object !== null && hasOnlyTypeAndObject(ev);
}

/** Same types and the same objects, in the same order (`cached` holds shareable events only). */
function sameEvents(cached: readonly unknown[], events: readonly unknown[]): boolean {
  if (cached.length !== events.length) return false;
  for (let i = 0; i < events.length; i++) {
    const a = cached[i] as { type: string; object: object };
    const b = events[i] as { type?: unknown; object?: unknown } | null;
    if (typeof b !== 'object' || b === null || a.type !== b.type || a.object !== b.object) return false;
    if (!hasOnlyTypeAndObject(b)) return false;
  }
  return true;
}

function hasOnlyTypeAndObject(ev: object): boolean {
  let n = 0;
  for (const k in ev) {
    if (k !== 'type' && k !== 'object') return false;
    n++;
  }
  return n === 2;
}
