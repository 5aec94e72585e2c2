import { isAbortError, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { readyCondition, type Node } from '../core/node.js';
import type { Registry } from '../registry/registry.js';

/**
 * The response header a lease renewal carries while the renewing node's Node is not Ready=True: its Ready status
 * as stored (`False`, `Unknown`, or `None` without a Ready condition). The agent posts its status at once when that
 * differs from what it last posted, so a wrong verdict heals within a status period without a second request per
 * renewal (docs/node-lifecycle.md#agent-heal).
 */
export const NODE_READY_HEADER = 'shepherd-node-ready';

/**
 * The Ready status of every Node that is not Ready=True, kept current from one watch of every Node, so a renewal
 * asks a Map and never the store. Memory: one entry per node that is not Ready.
 */
export class NodeReadyIndex {
  readonly #notReady = new Map<string, string>();

  /** The node's Ready status when it is not True; undefined for a Ready node or one the index does not hold. */
  statusOf(node: string): string | undefined {
    return this.#notReady.get(node);
  }

  apply(type: string, node: Node): void {
    const name = node.metadata.name;
    const status = type === 'DELETED' ? 'True' : (readyCondition(node)?.status ?? 'None');
    if (status === 'True') this.#notReady.delete(name);
    else this.#notReady.set(name, status);
  }

  clear(): void {
    this.#notReady.clear();
  }

  get size(): number {
    return this.#notReady.size;
  }
}

/**
 * Keeps `index` current until the signal aborts: lists and watches every Node (one registry watch), and starts
 * over, from a fresh list, after any end or failure of the watch (as runEventTally).
 */
export async function runNodeReadyIndex(
  deps: { registry: Registry; clock: Clock; log: Logger; retryMs?: number },
  index: NodeReadyIndex,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    index.clear();
    try {
      for await (const ev of deps.registry.watch('nodes', { signal })) {
        if (ev.type !== 'BOOKMARK') index.apply(ev.type, ev.object);
      }
    } catch (err) {
      if (signal.aborted || isAbortError(err)) return;
      deps.log.warn({ err }, 'the watch behind the shepherd-node-ready header failed; starting over');
    }
    try {
      await deps.clock.sleep(deps.retryMs ?? 1000, signal);
    } catch {
      return;
    }
  }
}
