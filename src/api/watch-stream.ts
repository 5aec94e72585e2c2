import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAbortError, type Clock } from '../core/clock.js';
import type { Resource } from '../core/kinds.js';
import type { ApiMetrics } from './metrics.js';
import { statusOf, toShepherdError } from './status-errors.js';

export interface WatchStreamsDeps {
  clock: Clock;
  metrics: ApiMetrics;
}

export interface OpenWatch {
  resource: Resource;
  /** Seconds after which the stream ends cleanly (Kubernetes' timeoutSeconds); none when undefined. */
  timeoutSeconds: number | undefined;
  /** Builds the event source; may throw (bad selector) before anything is sent, which becomes a Status. */
  events: (signal: AbortSignal) => AsyncIterable<unknown>;
}

/**
 * Serves watch streams as NDJSON and keeps the set of open ones, so `endAll()` (a preClose hook) can end them:
 * fastify's close() otherwise waits forever on a streaming response.
 */
export class WatchStreams {
  readonly #open = new Set<AbortController>();
  readonly #deps: WatchStreamsDeps;

  constructor(deps: WatchStreamsDeps) {
    this.#deps = deps;
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
    const events = watch.events(signal);
    const stream = new PassThrough();
    this.#open.add(controller);
    this.#deps.metrics.watchers.inc({ resource: watch.resource });
    // The client going away (or the response ending for any reason) stops the store watch.
    reply.raw.once('close', () => controller.abort());
    // Ending the stream here, not only when the store iterator notices the abort, is what makes close() prompt.
    signal.addEventListener('abort', () => stream.end(), { once: true });
    // fastify sets the headers just before piping; send them at once so the client sees 200 before any event.
    stream.once('resume', () => {
      if (!reply.raw.headersSent && !reply.raw.destroyed) reply.raw.flushHeaders();
    });
    if (watch.timeoutSeconds !== undefined) {
      this.#deps.clock.sleep(watch.timeoutSeconds * 1000, signal).then(
        () => controller.abort(),
        () => {},
      );
    }
    this.#pump(events, stream, signal, request).finally(() => {
      this.#open.delete(controller);
      this.#deps.metrics.watchers.dec({ resource: watch.resource });
      controller.abort();
    });
    return reply.code(200).header('content-type', 'application/x-ndjson').header('cache-control', 'no-cache').send(stream);
  }

  async #pump(events: AsyncIterable<unknown>, stream: PassThrough, signal: AbortSignal, request: FastifyRequest): Promise<void> {
    try {
      for await (const ev of events) {
        if (signal.aborted) break;
        // Backpressure: a slow client stops us pulling from the store iterator until its socket drains.
        if (!stream.write(`${JSON.stringify(ev)}\n`)) await once(stream, 'drain', { signal });
      }
    } catch (err) {
      if (!signal.aborted && !isAbortError(err)) {
        const e = toShepherdError(err);
        if (e.reason === 'InternalError') request.log.error({ err }, 'watch stream failed');
        if (!stream.writableEnded) stream.write(`${JSON.stringify({ type: 'ERROR', object: statusOf(e) })}\n`);
      }
    } finally {
      if (!stream.writableEnded) stream.end();
    }
  }
}
