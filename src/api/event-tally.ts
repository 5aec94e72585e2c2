import { isAbortError, type Clock } from '../core/clock.js';
import type { Event } from '../core/event.js';
import { isControlPlaneComponent } from '../core/event-sources.js';
import type { Logger } from '../core/logger.js';
import type { Registry } from '../registry/registry.js';

/** The node an Event counts against: the host it names, else the Node it is about. Control-plane Events: none. */
export function eventNodeOf(ev: Pick<Event, 'source' | 'involvedObject'>): string | undefined {
  if (isControlPlaneComponent(ev.source.component)) return undefined;
  if (ev.source.host !== undefined && ev.source.host !== '') return ev.source.host;
  return ev.involvedObject.kind === 'Node' ? ev.involvedObject.name : undefined;
}

/**
 * The bytes (stored JSON) of the Events each node has written, kept current from a watch of every Event so it
 * counts the writes of every server sharing the store. Memory: one entry per stored Event.
 */
export class EventTally {
  readonly #events = new Map<string, { node: string; bytes: number }>();
  readonly #nodes = new Map<string, number>();

  bytesOf(node: string): number {
    return this.#nodes.get(node) ?? 0;
  }

  apply(type: string, ev: Event, bytes: number): void {
    const name = ev.metadata.name;
    const old = this.#events.get(name);
    if (old !== undefined) {
      this.#add(old.node, -old.bytes);
      this.#events.delete(name);
    }
    if (type === 'DELETED') return;
    const node = eventNodeOf(ev);
    if (node === undefined) return;
    this.#events.set(name, { node, bytes });
    this.#add(node, bytes);
  }

  clear(): void {
    this.#events.clear();
    this.#nodes.clear();
  }

  #add(node: string, bytes: number): void {
    const total = (this.#nodes.get(node) ?? 0) + bytes;
    if (total <= 0) this.#nodes.delete(node);
    else this.#nodes.set(node, total);
  }
}

/**
 * Keeps `tally` current until the signal aborts: lists and watches every Event (one registry watch), and starts
 * over, from a fresh list, after any end or failure of the watch.
 */
export async function runEventTally(
  deps: { registry: Registry; clock: Clock; log: Logger; retryMs?: number },
  tally: EventTally,
  signal: AbortSignal,
): Promise<void> {
  const { registry } = deps;
  while (!signal.aborted) {
    tally.clear();
    try {
      for await (const ev of registry.watch('events', { signal })) {
        if (ev.type === 'BOOKMARK') continue;
        const json = registry.store.encodedJson(ev.object) ?? JSON.stringify(ev.object);
        tally.apply(ev.type, ev.object, Buffer.byteLength(json));
      }
    } catch (err) {
      if (signal.aborted || isAbortError(err)) return;
      deps.log.warn({ err }, 'the watch behind the per-node Event byte limit failed; starting over');
    }
    try {
      await deps.clock.sleep(deps.retryMs ?? 1000, signal);
    } catch {
      return;
    }
  }
}
