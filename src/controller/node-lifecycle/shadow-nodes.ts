import type { Writable } from '../../client/api-client.js';
import type { ObjectCache } from '../../client/object-cache.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { readyCondition, type Node, type NodeCondition, type Taint } from '../../core/node.js';
import { REASON_NEVER_UPDATED, REASON_UNKNOWN } from './node-health.js';
import { REASON_PARTITIONED } from './witness-gate.js';
import type { NodeOverlay } from './own-writes.js';
import { isControllerTaint } from './taints.js';

/** The Ready condition a simulated mark was made over: the mark holds until the agent posts another. */
type ReadyStamp = { status: string; lastHeartbeatTime: string | undefined } | undefined;

interface Shadow {
  /** The cached object the view was made from. */
  base: Node;
  /** What the dry-run controller sees: `base` itself while nothing differs. */
  view: Node;
  /** The agent's own last copy, while the cache holds another controller's Unknown mark over it. */
  agent: Node | undefined;
  /** The controller-owned taints as the dry-run controller would have them. */
  owned: Taint[];
  /** The Unknown mark the dry-run controller would have written, and the agent's Ready it was made over. */
  mark: { conditions: NodeCondition[]; over: ReadyStamp } | undefined;
}

const stampOf = (c: NodeCondition | undefined): ReadyStamp =>
  c && { status: c.status, lastHeartbeatTime: c.lastHeartbeatTime };
const sameStamp = (a: ReadyStamp, b: ReadyStamp): boolean =>
  a === undefined || b === undefined ? a === b : a.status === b.status && a.lastHeartbeatTime === b.lastHeartbeatTime;

/** Another node lifecycle controller marked this copy: its Ready carries a reason no agent writes. */
function markedByController(node: Node): boolean {
  const reason = readyCondition(node)?.reason;
  return reason === REASON_UNKNOWN || reason === REASON_NEVER_UPDATED || reason === REASON_PARTITIONED;
}

function sameTaintSet(a: readonly Taint[], b: readonly Taint[]): boolean {
  return (
    a.length === b.length &&
    a.every((t) => b.some((u) => u.key === t.key && u.effect === t.effect && u.timeAdded === t.timeAdded))
  );
}

/**
 * What the dry-run controller sees of the nodes (docs/verdicts.md#dry-run): the informer's copies, with the
 * controller-owned state (the Unknown mark and the controller's taints) replaced by what the dry-run controller
 * would have written, so its later decisions follow from its own, never from the live controller's:
 * - on first sight of a node it adopts the controller-owned state the store holds, as a restarted controller would
 *   (docs/node-lifecycle.md#d8-restarts-keep-noexecute-taints);
 * - from then on the owned taints are its own simulated ones: a taint the live controller adds or lifts is not seen;
 * - an Unknown mark the live controller writes later is not seen either: the conditions stay the agent's last own
 *   ones until the agent posts again;
 * - its own simulated mark holds until the agent posts a new Ready heartbeat, as a real mark would be overwritten.
 * Simulated writes (`updateStatus`, `update`) check the resourceVersion like the API, so conflicts and re-reads
 * behave as they do live. Costs one Map lookup per node and pass, and a record per node.
 */
export class ShadowNodes implements NodeOverlay {
  readonly #cache: ObjectCache<Node>;
  readonly #shadows = new Map<string, Shadow>();

  constructor(cache: ObjectCache<Node>) {
    this.#cache = cache;
  }

  /** The simulated writes answered the controller already: nothing to remember. */
  remember(): void {}

  forget(name: string): void {
    this.#shadows.delete(name);
  }

  /** Nothing is remembered (above), so nothing is pruned; a shadow lives as long as the controller knows the node. */
  prune(): void {}

  get(name: string): Node | undefined {
    const cached = this.#cache.get(name);
    if (!cached) {
      this.#shadows.delete(name);
      return undefined;
    }
    return this.freshen(cached);
  }

  freshen(listed: Node): Node {
    const name = listed.metadata.name;
    let s = this.#shadows.get(name);
    if (s === undefined) {
      s = {
        base: listed,
        view: listed,
        agent: undefined,
        owned: listed.spec.taints?.filter(isControllerTaint) ?? [],
        mark: undefined,
      };
      this.#shadows.set(name, s);
      return listed;
    }
    if (s.base === listed) return s.view;
    s.agent = this.#agentCopy(s, listed);
    s.base = listed;
    s.view = this.#compose(s, listed, s.agent, true);
    return s.view;
  }

  overlay(nodes: Node[]): Node[] {
    let out: Node[] | undefined;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i] as Node;
      const v = this.freshen(n);
      if (v !== n) (out ??= nodes.slice())[i] = v;
    }
    return out ?? nodes;
  }

  /** A node read live (a retry's GET) as the dry-run controller sees it; the shadow itself is not moved. */
  peek(live: Node): Node {
    const s = this.#shadows.get(live.metadata.name);
    if (s === undefined) return live;
    if (s.base === live) return s.view;
    return this.#compose(s, live, this.#agentCopy(s, live), false);
  }

  /** The Unknown mark the dry-run controller would have written (`PUT /status`). */
  updateStatus(obj: Writable<Node>): Node {
    const { s, cached } = this.#forWrite(obj);
    s.mark = { conditions: obj.status?.conditions ?? [], over: stampOf(readyCondition(s.agent ?? cached)) };
    s.view = this.#compose(s, cached, s.agent, true);
    return s.view;
  }

  /** The taints the dry-run controller would have written (`PUT`): only its own taints are kept from `obj`. */
  update(obj: Writable<Node>): Node {
    const { s, cached } = this.#forWrite(obj);
    s.owned = obj.spec?.taints?.filter(isControllerTaint) ?? [];
    s.view = this.#compose(s, cached, s.agent, true);
    return s.view;
  }

  #forWrite(obj: Writable<Node>): { s: Shadow; cached: Node } {
    const name = obj.metadata.name ?? '';
    const cached = this.#cache.get(name);
    if (!cached) throw new NotFoundError('nodes', name);
    this.freshen(cached);
    if (obj.metadata.resourceVersion !== cached.metadata.resourceVersion) throw new ConflictError('nodes', name);
    return { s: this.#shadows.get(name) as Shadow, cached };
  }

  /** The agent's own copy behind `next`: kept while the cache shows another controller's mark. */
  #agentCopy(s: Shadow, next: Node): Node | undefined {
    if (!markedByController(next)) return undefined;
    return s.agent ?? (markedByController(s.base) ? undefined : s.base);
  }

  #compose(s: Shadow, cached: Node, agent: Node | undefined, keep: boolean): Node {
    const own = agent ?? cached;
    let conditions = own.status.conditions;
    if (s.mark !== undefined) {
      if (sameStamp(s.mark.over, stampOf(readyCondition(own)))) conditions = s.mark.conditions;
      else if (keep) s.mark = undefined; // the agent posted since: a real mark would have been overwritten
    }
    const cachedTaints = cached.spec.taints ?? [];
    const taints = [...cachedTaints.filter((t) => !isControllerTaint(t)), ...s.owned];
    if (conditions === cached.status.conditions && sameTaintSet(taints, cachedTaints)) return cached;
    return {
      ...cached,
      spec: { ...cached.spec, taints },
      status: { ...cached.status, conditions: conditions ?? [] },
    };
  }
}
