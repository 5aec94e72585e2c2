import type { ApiClient } from '../client/api-client.js';
import { watchWithResume } from '../client/watch-resume.js';
import { isAbortError, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { readyCondition, zoneKeyOf, type Node } from '../core/node.js';

export type ReadyStatus = 'True' | 'False' | 'Unknown' | 'None';

/** What the simulator keeps of a node: a few strings, not the object (50,000 Node objects cost ~200 MB). */
export interface NodeView {
  ready: ReadyStatus;
  zone: string;
  /** NoExecute taints as `key:NoExecute`, sorted. */
  noExecute: string[];
}

export type NodeChange = (name: string, before: NodeView | undefined, after: NodeView | undefined) => void;

export function viewOf(node: Node): NodeView {
  const noExecute = (node.spec.taints ?? []).filter((t) => t.effect === 'NoExecute').map((t) => `${t.key}:${t.effect}`);
  return {
    ready: readyCondition(node)?.status ?? 'None',
    zone: zoneKeyOf(node.metadata.labels),
    noExecute: noExecute.sort(),
  };
}

export interface StateCounts {
  total: number;
  True: number;
  False: number;
  Unknown: number;
  None: number;
  /** Nodes carrying a NoExecute taint. */
  tainted: number;
}

export function countStates(views: Iterable<NodeView>): StateCounts {
  const c: StateCounts = { total: 0, True: 0, False: 0, Unknown: 0, None: 0, tainted: 0 };
  for (const v of views) {
    c.total++;
    c[v.ready]++;
    if (v.noExecute.length > 0) c.tainted++;
  }
  return c;
}

/**
 * Nodes as the server sees them, kept current by one list + watch (resumed on a dropped stream, relisted on
 * Gone). A watch costs the server one event per node change; listing 50,000 nodes every few seconds would
 * cost it tens of megabytes of JSON each time and skew the very figures the simulator reports.
 */
export class NodeWatch {
  readonly #views = new Map<string, NodeView>();
  readonly #listeners = new Set<NodeChange>();
  #synced = false;
  readonly #deps: { client: ApiClient; clock: Clock; log: Logger };

  constructor(deps: { client: ApiClient; clock: Clock; log: Logger }) {
    this.#deps = deps;
  }

  get synced(): boolean {
    return this.#synced;
  }

  get(name: string): NodeView | undefined {
    return this.#views.get(name);
  }

  counts(): StateCounts {
    return countStates(this.#views.values());
  }

  onChange(listener: NodeChange): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const list = await this.#deps.client.nodes.list({ signal });
        this.#replace(list.items);
        const events = watchWithResume(this.#deps.client.nodes, {
          resourceVersion: list.metadata.resourceVersion,
          allowWatchBookmarks: true,
          onRelist: (l) => this.#replace(l.items),
          signal,
          clock: this.#deps.clock,
          log: this.#deps.log,
        });
        for await (const ev of events) {
          if (ev.type === 'BOOKMARK') continue;
          this.#set(ev.object.metadata.name, ev.type === 'DELETED' ? undefined : viewOf(ev.object));
        }
      } catch (err) {
        if (signal.aborted || isAbortError(err)) return;
        this.#deps.log.warn({ err: String(err) }, `watching nodes failed (${String(err)}); listing again in 2s`);
        await this.#deps.clock.sleep(2000, signal).catch(() => undefined);
      }
    }
  }

  #replace(items: Node[]): void {
    const seen = new Set<string>();
    for (const node of items) {
      seen.add(node.metadata.name);
      this.#set(node.metadata.name, viewOf(node));
    }
    for (const name of [...this.#views.keys()]) if (!seen.has(name)) this.#set(name, undefined);
    this.#synced = true;
  }

  #set(name: string, after: NodeView | undefined): void {
    const before = this.#views.get(name);
    if (after === undefined) this.#views.delete(name);
    else this.#views.set(name, after);
    if (sameView(before, after)) return;
    for (const l of this.#listeners) l(name, before, after);
  }
}

function sameView(a: NodeView | undefined, b: NodeView | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.ready === b.ready && a.zone === b.zone && a.noExecute.join(',') === b.noExecute.join(',');
}
