import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAbortError, type Clock } from '../core/clock.js';
import type { Resource } from '../core/kinds.js';
import type { ApiMetrics } from './metrics.js';
import { eventBatches, hasBatches } from '../store/event-batches.js';
import type { Store } from '../store/store.js';
import { statusOf, toShepherdError } from './status-errors.js';
import { WatchLines } from './watch-lines.js';

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

  /**
   * Sends `data` as the response's next chunk and returns what to wait on for 'drain'. Node's `res.write` sends a
   * chunk as four socket writes (length, CRLF, data, CRLF) under a cork lifted on the next tick: for 100 watchers of
   * one commit, 100 ticks and 100 four-buffer writev calls. Once the headers are out, a chunked response takes the
   * chunk's frame, built once for every watcher (`WatchLines.frame`), in one write straight to its socket: 4 % less
   * server CPU a write at 100 watchers (BENCHMARKS.md section 28). The response stays Node's: an ERROR line and the
   * last chunk go through `res`, behind these bytes on the same socket. A response without a socket (a pipelined
   * one waiting its turn, whose bytes Node holds) or not chunked (HTTP/1.0) takes `res.write`.
   */
  #write(res: ServerResponse, data: Buffer): NodeJS.EventEmitter {
    const socket = res.socket;
    if (res.chunkedEncoding && res.headersSent && !res.writableEnded && socket !== null && data.length > 0) {
      socket.write(this.#lines.frame(data));
      return socket;
    }
    res.write(data);
    return res;
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
          const data = this.#lines.batchChunk(batch.length <= WRITE_SLICE ? batch : batch.slice(i, i + WRITE_SLICE));
          const sentOn = this.#write(res, data);
          // Backpressure: a slow client stops us pulling from the store iterator until its socket drains. A
          // commit's batch alone often passes the socket's 16 KiB mark, so a client that keeps up is only waited
          // for beyond a few batches.
          if (res.writableLength > UNSENT_BYTES_BEFORE_WAIT) await once(sentOn, 'drain', { signal });
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
