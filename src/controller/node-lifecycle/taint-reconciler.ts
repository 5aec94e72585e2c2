import type { ApiClient } from '../../client/api-client.js';
import type { ObjectCache } from '../../client/object-cache.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { readyCondition, zoneKeyOf, type Node, type NodeCondition, type Taint } from '../../core/node.js';
import type { ZoneBook } from './disruption.js';
import type { EventRecorder } from './events.js';
import type { NodeLifecycleMetrics } from './metrics.js';
import type { TryResult } from './rate-limited-queue.js';
import {
  desiredNoScheduleKeys,
  hasTaint,
  noExecuteFor,
  NOT_READY_NO_EXECUTE,
  reconcileNoSchedule,
  sameTaints,
  swapTaints,
  UNREACHABLE_NO_EXECUTE,
  writeTaints,
} from './taints.js';

/** Tainter retry for a node without a Ready condition (upstream `doNoExecuteTaintingPass`). */
export const TAINTER_RETRY_MS = 50;

export interface TaintReconcilerDeps {
  client: ApiClient;
  nodes: ObjectCache<Node>;
  clock: Clock;
  log: Logger;
  zones: ZoneBook;
  events: EventRecorder;
  metrics: NodeLifecycleMetrics;
}

const taintName = (t: { key: string; effect: string }): string => `${t.key}:${t.effect}`;
const rv = (n: Node): number => Number(n.metadata.resourceVersion);

/** What `prepare` decided for one node; `apply` writes it. */
export interface TaintPlan {
  node: Node;
  zone: string;
  /** Ready is True, or master-disruption mode: both NoExecute taints go. */
  healthy: boolean;
  noExecute: { want: Taint; other: Taint } | undefined;
  /** Set when the opposite NoExecute taint is swapped at once (named for the event). */
  swapTo: string | undefined;
  nowWallMs: number;
}

/** The node's taints as the plan wants them: NoSchedule mirrors, NoExecute lifted or swapped. */
function desiredTaints(plan: TaintPlan, taints: readonly Taint[], node: Node): Taint[] {
  const now = plan.nowWallMs;
  let next = reconcileNoSchedule(taints, desiredNoScheduleKeys(node.status.conditions, node.spec.unschedulable), now);
  if (plan.healthy) next = swapTaints(next, [], [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE], now);
  else if (plan.noExecute && hasTaint(next, plan.noExecute.other))
    next = swapTaints(next, [plan.noExecute.want], [plan.noExecute.other], now);
  return next;
}

/**
 * Everything that writes taints: the per-pass reconcile of one node (`processTaintBaseEviction`, the NoSchedule
 * mirrors of `doNoScheduleTaintingPass`, master-disruption lifting) and the rate-limited NoExecute tainter
 * (`doNoExecuteTaintingPass`). Nodes are read from the cache, or from our own newer write when the cache has
 * not delivered it yet, so a taint decision never acts on a status older than one we wrote.
 */
export class TaintReconciler {
  readonly #d: TaintReconcilerDeps;
  /** Our own writes the cache may not have delivered yet (dropped once the cache catches up). */
  readonly #written = new Map<string, Node>();

  constructor(deps: TaintReconcilerDeps) {
    this.#d = deps;
  }

  /** The newest copy of a node we know of; undefined when the cache no longer has it (deleted). */
  fresh(name: string): Node | undefined {
    const cached = this.#d.nodes.get(name);
    const mine = this.#written.get(name);
    if (!cached) {
      this.#written.delete(name);
      return undefined;
    }
    if (mine && rv(mine) > rv(cached)) return mine;
    this.#written.delete(name);
    return cached;
  }

  /** `fresh` for a copy the caller already read from the cache (one lookup less per node and pass). */
  freshen(listed: Node): Node {
    const name = listed.metadata.name;
    const mine = this.#written.get(name);
    if (!mine) return listed;
    if (rv(mine) > rv(listed)) return mine;
    this.#written.delete(name);
    return listed;
  }

  /** `freshen` over a whole list: the same array when none of our writes is pending, else a fresh copy. */
  freshenAll(nodes: readonly Node[]): readonly Node[] {
    if (this.#written.size === 0) return nodes;
    return nodes.map((n) => this.freshen(n));
  }

  remember(node: Node): void {
    this.#written.set(node.metadata.name, node);
  }

  forget(name: string): void {
    this.#written.delete(name);
  }

  /**
   * One node after the zone decisions of the pass (docs/node-lifecycle.md#d5-one-loop-in-a-fixed-order), from its
   * Ready as judged in this pass (https://github.com/kubernetes/kubernetes/pull/120816): True → both NoExecute
   * taints go at once; False/Unknown → an instant swap when the opposite NoExecute taint is there, nothing when the
   * matching one is (no token spent: docs/node-lifecycle.md#d8-restarts-keep-noexecute-taints), else the zone
   * queue. In master-disruption mode NoExecute taints are lifted and unhealthy nodes wait in the queue. NoSchedule
   * mirrors are kept in sync without rate limit (docs/node-lifecycle.md#d15-noschedule-taints-once-per-pass). One
   * write per node at most.
   */
  async reconcile(node: Node, current: NodeCondition | undefined, master: boolean): Promise<void> {
    const plan = this.prepare(node, current, master);
    if (plan) await this.apply(plan);
  }

  /**
   * The synchronous half of `reconcile`: the zone-queue bookkeeping, then the taints the node should carry,
   * computed on its cached copy. Undefined when that copy already carries them (no API call, no event): a monitor
   * pass runs this for every node in name order, and only the few plans it returns go through the async writes.
   */
  prepare(node: Node, current: NodeCondition | undefined, master: boolean): TaintPlan | undefined {
    const name = node.metadata.name;
    const zone = zoneKeyOf(node.metadata.labels);
    const taints = node.spec.taints ?? [];
    const hadNoExecute = hasTaint(taints, UNREACHABLE_NO_EXECUTE) || hasTaint(taints, NOT_READY_NO_EXECUTE);
    const m = current ? noExecuteFor(current.status) : undefined;
    let swapTo: string | undefined;
    if (master) {
      if (hadNoExecute) this.#d.zones.forget(zone, name);
      if (m) this.#d.zones.ensurePending(zone, name, node.metadata.uid);
      else if (current) this.#d.zones.forget(zone, name);
    } else if (current?.status === 'True') {
      this.#d.zones.forget(zone, name);
    } else if (m && !hasTaint(taints, m.want)) {
      if (hasTaint(taints, m.other)) swapTo = taintName(m.want);
      else this.#d.zones.ensurePending(zone, name, node.metadata.uid);
    }
    const plan: TaintPlan = {
      node,
      zone,
      healthy: master || current?.status === 'True',
      noExecute: m,
      swapTo,
      nowWallMs: this.#d.clock.now(),
    };
    if (swapTo === undefined && sameTaints(taints, desiredTaints(plan, taints, node))) return undefined;
    return plan;
  }

  /** The write half of `reconcile`: `writeTaints` (conflict retries re-read the node) and the swap event. */
  async apply(plan: TaintPlan): Promise<void> {
    const { node, zone, swapTo } = plan;
    const name = node.metadata.name;
    const res = await writeTaints(this.#d.client, node, (t, n) => desiredTaints(plan, t, n));
    if (!res.ok) {
      this.#d.log.warn({ err: res.error, node: name }, 'could not update node taints; will retry next pass');
      return;
    }
    if (res.node && res.node !== node) this.remember(res.node);
    if (swapTo) {
      this.#d.events.emit(
        { kind: 'Node', name, uid: node.metadata.uid },
        'Warning',
        'NodeTainted',
        `Node ${name} tainted ${swapTo} (instant swap, zone ${zone || 'default'})`,
      );
    }
  }

  /** `doNoExecuteTaintingPass`: every zone queue, in zone order, through its rate limiter. */
  async tainterPass(): Promise<void> {
    for (const [zone, zq] of this.#d.zones.queues()) {
      try {
        await zq.queue.try((v) => this.#taintOne(zone, v.value));
      } catch (err) {
        this.#d.log.error({ err, zone }, 'NoExecute tainter failed for zone; will retry');
      }
    }
  }

  async #taintOne(zone: string, name: string): Promise<TryResult> {
    const node = this.fresh(name);
    if (!node) {
      this.#d.zones.markDone(zone, name);
      return { done: true };
    }
    const ready = readyCondition(node);
    if (!ready) return { done: false, retryAfterMs: TAINTER_RETRY_MS };
    const m = noExecuteFor(ready.status);
    if (!m) {
      this.#d.zones.markDone(zone, name);
      return { done: true };
    }
    const already = hasTaint(node.spec.taints, m.want);
    const res = await writeTaints(this.#d.client, node, (t) => swapTaints(t, [m.want], [m.other], this.#d.clock.now()));
    if (!res.ok) {
      this.#d.log.warn({ err: res.error, node: name }, 'could not add NoExecute taint; will retry');
      return { done: false, retryAfterMs: 0 };
    }
    this.#d.zones.markDone(zone, name);
    if (res.node && !already) {
      this.remember(res.node);
      this.#d.metrics.taintsAdded.inc({ zone });
      const rate = this.#d.zones.rate(zone);
      this.#d.events.emit(
        { kind: 'Node', name, uid: node.metadata.uid },
        'Warning',
        'NodeTainted',
        `Node ${name} tainted ${taintName(m.want)} (zone ${zone || 'default'} at ${rate}/s)`,
      );
    }
    return { done: true };
  }
}
