import type { ObjectCache } from '../../client/object-cache.js';
import type { Node } from '../../core/node.js';

const rv = (n: Node): number => Number(n.metadata.resourceVersion);

/**
 * How the controller reads nodes: the informer's copies, laid over with what it wrote itself. The live controller's
 * overlay is OwnWrites; the dry-run controller's is ShadowNodes (its simulated writes, docs/verdicts.md#dry-run).
 */
export interface NodeOverlay {
  /** Records the copy a write of ours was answered with. */
  remember(node: Node): void;
  /** Forgets a node the controller no longer knows. */
  forget(name: string): void;
  /** The node as the controller should see it; undefined when the cache no longer has it (deleted). */
  get(name: string): Node | undefined;
  /** `get` for a copy the caller already read from the cache. */
  freshen(listed: Node): Node;
  /** `freshen` over the whole sorted list (the same array when nothing is laid over it). */
  overlay(nodes: Node[]): Node[];
  /** Drops our copies of these nodes that the cache has caught up with (what `freshen` would drop). */
  prune(names: readonly string[]): void;
}

/**
 * The controller's own recent node writes, laid over the node cache. After a write (an Unknown mark, a taint)
 * the informer may not have delivered the new copy yet; a decision taken on the older cached copy would repeat
 * or undo the write. Reads through here return our copy while the cache is behind it, and drop it once the
 * cache caught up (a newer or equal resourceVersion) or no longer has the node (deleted).
 */
export class OwnWrites implements NodeOverlay {
  readonly #nodes: ObjectCache<Node>;
  /** Our writes the cache may not have delivered yet, by node name. */
  readonly #written = new Map<string, Node>();

  constructor(nodes: ObjectCache<Node>) {
    this.#nodes = nodes;
  }

  /** Records the copy the API answered a write of ours with. */
  remember(node: Node): void {
    this.#written.set(node.metadata.name, node);
  }

  /** Forgets a node the controller no longer knows. */
  forget(name: string): void {
    this.#written.delete(name);
  }

  /** The newest copy of a node we know of; undefined when the cache no longer has it (deleted). */
  get(name: string): Node | undefined {
    const cached = this.#nodes.get(name);
    if (!cached) {
      this.#written.delete(name);
      return undefined;
    }
    return this.freshen(cached);
  }

  /** `get` for a copy the caller already read from the cache (one lookup less per node and pass). */
  freshen(listed: Node): Node {
    const name = listed.metadata.name;
    const mine = this.#written.get(name);
    if (!mine) return listed;
    if (rv(mine) > rv(listed)) return mine;
    this.#written.delete(name);
    return listed;
  }

  /**
   * Drops our copies of `names` once the cache holds them (or no longer holds the node), as `freshen` would at the
   * next pass: between passes a burst of writes would otherwise keep a second copy of every node it wrote.
   */
  prune(names: readonly string[]): void {
    for (const name of names) {
      const mine = this.#written.get(name);
      if (mine === undefined) continue;
      const cached = this.#nodes.get(name);
      if (cached === undefined || rv(mine) <= rv(cached)) this.#written.delete(name);
    }
  }

  /** `freshen` over a whole list: the same array when none of our writes is pending, else a fresh copy. */
  overlay(nodes: Node[]): Node[] {
    if (this.#written.size === 0) return nodes;
    return nodes.map((n) => this.freshen(n));
  }
}
