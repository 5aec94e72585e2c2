import type { Node } from '../../core/node.js';
import { isTerminated, isTerminating, type Pod } from '../../core/pod.js';
import { boundNodeOf, controllerOf } from '../pod-index.js';
import { newUsage, nodeInfoOf, type NodeInfo, type NodeUsage } from './node-info.js';
import { zoneInterleaved } from './node-order.js';

/** What one pod adds to its node's usage. */
interface PodSlot {
  node: string;
  /** Counted in the owner's spread (not terminating, and owned). */
  owner: string | undefined;
  /** Placed by this scheduler and not yet seen bound by the informer. */
  assumed: boolean;
}

/**
 * kube-scheduler's cache: per node, the Node as the informer last delivered it and what the pods bound to it use;
 * per owner, how many of its pods each zone holds. A pod the scheduler has just placed is *assumed* on its node the
 * moment the binding is sent, so the next pods of a burst see it there before the informer does (otherwise a burst
 * would pile onto the same emptiest node); the informer's bound copy later replaces the assumption, and a failed
 * binding forgets it. Everything is updated incrementally from informer events: one event costs O(1), never a walk
 * over the nodes.
 */
export class SchedulerCache {
  readonly #infos = new Map<string, NodeInfo>();
  /** By node name; also for nodes the cache does not know (yet), so no pod is lost when its node arrives late. */
  readonly #usage = new Map<string, NodeUsage>();
  readonly #zoneOwners = new Map<string, Map<string, number>>();
  readonly #pods = new Map<string, PodSlot>();
  #order: NodeInfo[] | undefined;

  get nodeCount(): number {
    return this.#infos.size;
  }

  node(name: string): NodeInfo | undefined {
    return this.#infos.get(name);
  }

  /** Every node in search order: zones interleaved, names sorted within a zone (rebuilt after membership changes). */
  order(): readonly NodeInfo[] {
    this.#order ??= zoneInterleaved(this.#infos.values());
    return this.#order;
  }

  /** The owner's pods per zone, not counting terminating ones; undefined when it has none. */
  ownerZones(owner: string | undefined): ReadonlyMap<string, number> | undefined {
    return owner === undefined ? undefined : this.#zoneOwners.get(owner);
  }

  /**
   * Adds or replaces a node; answers a copy of its NodeInfo before the change and the (live) NodeInfo after. A known
   * node's NodeInfo is updated in place, so the search order needs no rebuild unless the zone changed.
   */
  setNode(node: Node): { before: NodeInfo | undefined; after: NodeInfo } {
    const name = node.metadata.name;
    const info = this.#infos.get(name);
    const fresh = nodeInfoOf(node, this.#usageOf(name));
    if (info === undefined) {
      this.#infos.set(name, fresh);
      this.#zoneDelta(fresh.zone, fresh.usage.owners, 1);
      this.#order = undefined;
      return { before: undefined, after: fresh };
    }
    const before = { ...info };
    Object.assign(info, fresh);
    if (before.zone !== info.zone) {
      this.#zoneDelta(before.zone, info.usage.owners, -1);
      this.#zoneDelta(info.zone, info.usage.owners, 1);
      this.#order = undefined;
    }
    return { before, after: info };
  }

  removeNode(name: string): void {
    const info = this.#infos.get(name);
    if (info === undefined) return;
    this.#infos.delete(name);
    this.#zoneDelta(info.zone, info.usage.owners, -1);
    if (info.usage.pods === 0) this.#usage.delete(name);
    this.#order = undefined;
  }

  /** The informer's view of a pod (or undefined: it was deleted). An assumption survives an unbound copy. */
  setPod(key: string, pod: Pod | undefined): void {
    const slot = this.#pods.get(key);
    if (pod !== undefined && slot?.assumed === true && boundNodeOf(pod) === undefined && !isTerminating(pod)) return;
    this.#apply(key, pod === undefined ? undefined : slotOf(pod));
  }

  /** Places `pod` on `nodeName` ahead of the binding (kube-scheduler's AssumePod). */
  assume(key: string, pod: Pod, nodeName: string): void {
    this.#apply(key, { node: nodeName, owner: controllerOf(pod)?.uid, assumed: true });
  }

  /** The binding failed: the pod no longer uses its assumed node (kube-scheduler's ForgetPod). */
  forget(key: string): void {
    if (this.#pods.get(key)?.assumed === true) this.#apply(key, undefined);
  }

  isAssumed(key: string): boolean {
    return this.#pods.get(key)?.assumed === true;
  }

  #apply(key: string, next: PodSlot | undefined): void {
    const prev = this.#pods.get(key);
    if (prev !== undefined) this.#account(prev, -1);
    if (next === undefined) this.#pods.delete(key);
    else {
      this.#pods.set(key, next);
      this.#account(next, 1);
    }
  }

  #account(slot: PodSlot, sign: 1 | -1): void {
    const usage = this.#usageOf(slot.node);
    usage.pods += sign;
    if (slot.owner !== undefined) {
      const owners = (usage.owners ??= new Map());
      const n = (owners.get(slot.owner) ?? 0) + sign;
      if (n !== 0) owners.set(slot.owner, n);
      else if (owners.delete(slot.owner) && owners.size === 0) usage.owners = undefined;
      const info = this.#infos.get(slot.node);
      if (info !== undefined) this.#ownerZoneDelta(slot.owner, info.zone, sign);
    }
    if (usage.pods === 0 && !this.#infos.has(slot.node)) this.#usage.delete(slot.node);
  }

  #usageOf(node: string): NodeUsage {
    let usage = this.#usage.get(node);
    if (usage === undefined) this.#usage.set(node, (usage = newUsage()));
    return usage;
  }

  #zoneDelta(zone: string, owners: ReadonlyMap<string, number> | undefined, sign: 1 | -1): void {
    if (owners === undefined) return;
    for (const [owner, n] of owners) this.#ownerZoneDelta(owner, zone, sign * n);
  }

  #ownerZoneDelta(owner: string, zone: string, delta: number): void {
    let zones = this.#zoneOwners.get(owner);
    if (zones === undefined) this.#zoneOwners.set(owner, (zones = new Map()));
    const n = (zones.get(zone) ?? 0) + delta;
    if (n === 0) zones.delete(zone);
    else zones.set(zone, n);
    if (zones.size === 0) this.#zoneOwners.delete(owner);
  }
}

/** What a pod as stored uses: its node's room while bound and not terminated; a spread count while not terminating. */
function slotOf(pod: Pod): PodSlot | undefined {
  const node = boundNodeOf(pod);
  if (node === undefined || isTerminated(pod)) return undefined;
  return { node, owner: isTerminating(pod) ? undefined : controllerOf(pod)?.uid, assumed: false };
}
