import type { ApiClient } from '../../src/client/api-client.js';
import { watchWithResume } from '../../src/client/watch-resume.js';
import type { Node, Taint } from '../../src/core/node.js';
import { readyCondition, TAINT_UNREACHABLE } from '../../src/core/node.js';
import { silentLogger } from '../../src/core/logger.js';

/** One node change as a watcher saw it. */
export interface NodeChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  node: Node;
  /** Wall-clock ms when the watcher received it. */
  at: number;
}

/**
 * Records every node change straight from the server (not through any proxy under test), resuming by
 * resourceVersion across server restarts with a short backoff, so a mark that is written and undone between
 * two polls is still seen.
 */
export class NodeHistory {
  readonly changes: NodeChange[] = [];
  readonly #ac = new AbortController();
  readonly #done: Promise<void>;

  constructor(client: ApiClient, fromResourceVersion: string) {
    this.#done = (async () => {
      const events = watchWithResume(client.nodes, {
        resourceVersion: fromResourceVersion,
        allowWatchBookmarks: true,
        signal: this.#ac.signal,
        backoff: { initialMs: 50, maxMs: 300 },
        log: silentLogger,
      });
      for await (const ev of events) {
        if (ev.type !== 'BOOKMARK') this.changes.push({ type: ev.type, node: ev.object, at: Date.now() });
      }
    })().catch(() => undefined);
  }

  /** Starts recording after the newest revision a fresh list shows. */
  static async start(client: ApiClient): Promise<NodeHistory> {
    const list = await client.nodes.list();
    return new NodeHistory(client, list.metadata.resourceVersion);
  }

  /** Changes that showed a node whose Ready was not True. */
  notReady(): NodeChange[] {
    return this.changes.filter((c) => c.type !== 'DELETED' && readyOf(c.node) !== 'True');
  }

  async stop(): Promise<void> {
    this.#ac.abort();
    await this.#done;
  }
}

export function readyOf(node: Node | undefined): string | undefined {
  return node ? readyCondition(node)?.status : undefined;
}

export function unreachableNoExecute(node: Node | undefined): Taint | undefined {
  return node?.spec.taints?.find((t) => t.key === TAINT_UNREACHABLE && t.effect === 'NoExecute');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
