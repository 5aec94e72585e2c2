import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAbortError, type Clock } from '../core/clock.js';
import type { Resource } from '../core/kinds.js';
import type { ApiMetrics } from './metrics.js';
import { eventBatches, hasBatches } from '../store/event-batches.js';
import type { Store } from '../store/store.js';
import { statusOf, toShepherdError } from './status-errors.js';

export interface WatchStreamsDeps {
  clock: Clock;
  metrics: ApiMetrics;
  /** The store the events come from: it knows the JSON text of the objects it streams. */
  store: Pick<Store, 'encodedJson'>;
}

export interface OpenWatch {
  resource: Resource;
  /** Seconds after which the stream ends cleanly (Kubernetes' timeoutSeconds); none when undefined. */
  timeoutSeconds: number | undefined;
  /**
   * Builds the event source; may throw (bad selector) before anything is sent, which becomes a Status.
   * `onOverflow` is the store's word that the watcher fell too far behind (WatchOptions.onOverflow).
   */
  events: (signal: AbortSignal, onOverflow: (err: Error) => void) => AsyncIterable<unknown>;
}

/** How long a watch cut off for falling behind may take to receive its ERROR line before its connection is closed. */
const TOO_SLOW_GRACE_MS = 10_000;

/** Bytes a watch response may hold unsent (beyond the kernel's socket buffer) before its stream stops pulling. */
const UNSENT_BYTES_BEFORE_WAIT = 64 * 1024;

/** Events serialised in one synchronous step at most (a node's line is ~1.5 KB and ~5 µs to build). */
export const WRITE_SLICE = 500;

/**
 * Serves watch streams as NDJSON and keeps the set of open ones, so `endAll()` (a preClose hook) can end them:
 * fastify's close() otherwise waits forever on a streaming response.
 */
export class WatchStreams {
  readonly #open = new Set<AbortController>();
  readonly #deps: WatchStreamsDeps;
  readonly #lines: WatchLines;

  constructor(deps: WatchStreamsDeps) {
    this.#deps = deps;
    this.#lines = new WatchLines(deps.store);
  }

  get size(): number {
    return this.#open.size;
  }

  endAll(): void {
    for (const c of this.#open) c.abort();
  }

  serve(request: FastifyRequest, reply: FastifyReply, watch: OpenWatch): FastifyReply {
    const controller = new AbortController();
    const { signal } = controller;
    const res = reply.raw;
    const events = watch.events(signal, (err) =>
      // Out of the commit that overflowed the watcher's queue; the pump may be parked on a full socket.
      queueMicrotask(() => this.#endTooSlow(err, res, controller, request)),
    );
    // The response is written here, not piped from a stream by reply.send(): a stream in between costs every
    // watcher two more buffers and event hops per write. onResponse hooks still run when it finishes.
    reply.hijack();
    // 200 and the headers at once, so the client knows the watch is open before any event.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-cache' });
    res.flushHeaders();
    this.#open.add(controller);
    this.#deps.metrics.watchers.inc({ resource: watch.resource });
    // The client going away (or the response ending for any reason) stops the store watch.
    res.once('close', () => controller.abort());
    // Nothing else listens on a hijacked response: an error it reports must end this watch, not the process.
    res.on('error', (err) => {
      request.log.warn({ err, url: request.url }, 'watch response failed');
      controller.abort();
    });
    // Ending the response here, not only when the store iterator notices the abort, is what makes close() prompt.
    signal.addEventListener('abort', () => res.end(), { once: true });
    if (watch.timeoutSeconds !== undefined) {
      this.#deps.clock.sleep(watch.timeoutSeconds * 1000, signal).then(
        () => controller.abort(),
        () => {},
      );
    }
    this.#pump(events, res, signal, request).finally(() => {
      this.#open.delete(controller);
      this.#deps.metrics.watchers.dec({ resource: watch.resource });
      controller.abort();
    });
    return reply;
  }

  /**
   * Ends a watch whose client fell too far behind: the ERROR line goes out after what is buffered (a slow reader
   * gets it and resumes), and a client that reads nothing at all loses its connection after a grace period, so it
   * holds neither memory nor its watch slot.
   */
  #endTooSlow(err: Error, res: ServerResponse, controller: AbortController, request: FastifyRequest): void {
    if (res.writableEnded || controller.signal.aborted) return;
    const e = toShepherdError(err);
    request.log.info({ url: request.url, reason: e.message }, 'ended a watch whose client fell too far behind');
    this.#deps.metrics.watchesTooSlow.inc();
    res.write(`${JSON.stringify({ type: 'ERROR', object: statusOf(e) })}\n`);
    controller.abort();
    // The response may count as finished while its last bytes still wait in the socket: judge by the socket.
    const socket = res.socket;
    this.#deps.clock.sleep(TOO_SLOW_GRACE_MS).then(
      () => {
        if (socket !== null && !socket.destroyed && socket.writableLength > 0) socket.destroy();
      },
      () => {},
    );
  }

  async #pump(
    events: AsyncIterable<unknown>,
    res: ServerResponse,
    signal: AbortSignal,
    request: FastifyRequest,
  ): Promise<void> {
    // A stream with a batch path hands out a commit's events at once: one write each. One event at a time, the
    // writes of the rest of the event-loop turn are gathered into one socket write instead.
    const batcher = hasBatches(events) ? undefined : new WriteBatcher(res);
    try {
      for await (const batch of eventBatches(events)) {
        if (signal.aborted) break;
        batcher?.hold();
        for (let i = 0; i < batch.length && !signal.aborted; i += WRITE_SLICE) {
          // A batch longer than a slice (a watch's initial state: every object of the kind) is serialised a slice
          // at a time, the event loop free between: 30,000 nodes in one step held it 150 ms (BENCHMARKS.md §26).
          if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
          res.write(this.#lines.batchChunk(batch.length <= WRITE_SLICE ? batch : batch.slice(i, i + WRITE_SLICE)));
          // Backpressure: a slow client stops us pulling from the store iterator until its socket drains. A
          // commit's batch alone often passes the socket's 16 KiB mark, so a client that keeps up is only waited
          // for beyond a few batches.
          if (res.writableLength > UNSENT_BYTES_BEFORE_WAIT) await once(res, 'drain', { signal });
        }
      }
    } catch (err) {
      if (!signal.aborted && !isAbortError(err)) {
        const e = toShepherdError(err);
        if (e.reason === 'InternalError') request.log.error({ err }, 'watch stream failed');
        if (!res.writableEnded) res.write(`${JSON.stringify({ type: 'ERROR', object: statusOf(e) })}\n`);
      }
    } finally {
      if (!res.writableEnded) res.end();
    }
  }
}

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

/** Batches remembered by WatchLines.batchChunk: commits of a few kinds interleave, each fans out to many. */
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

/**
 * Corks the response for the rest of the event-loop turn: a commit publishes its whole batch at once and the
 * watch drains it in microtasks, so the batch leaves in one socket write instead of one per event.
 */
class WriteBatcher {
  readonly #res: { cork(): void; uncork(): void };
  #held = false;

  constructor(res: { cork(): void; uncork(): void }) {
    this.#res = res;
  }

  hold(): void {
    if (this.#held) return;
    this.#held = true;
    this.#res.cork();
    setImmediate(() => {
      this.#held = false;
      this.#res.uncork();
    });
  }
}
