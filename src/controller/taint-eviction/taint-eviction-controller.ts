import type { ApiClient } from '../../client/api-client.js';
import type { Informer } from '../../client/informer.js';
import type { Clock } from '../../core/clock.js';
import { isReason } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Node, Taint } from '../../core/node.js';
import { objectKey } from '../../core/object-key.js';
import { isTerminating, type Pod } from '../../core/pod.js';
import { TAINT_EVICTION_CONTROLLER_COMPONENT } from '../../core/event-sources.js';
import { EventRecorder } from '../node-lifecycle/events.js';
import { runEvery } from '../periodic.js';
import { boundNodeOf, PodIndex } from '../pod-index.js';
import { runWorkers, WorkQueue } from '../work-queue.js';
import { evictionTime, noExecuteChanged, noExecuteTaints, taintId } from './eviction-time.js';
import { TaintEvictionMetrics } from './metrics.js';

export interface TaintEvictionConfig {
  /** Evictions found overdue when the controller starts are released at this many pods per second. */
  rebuildRate: number;
  /** Deletions in flight at once. */
  workers: number;
}

/** 10 pods/s: the pace at which a healthy controller deletes pods of a zone tainted at 0.1 nodes/s (docs/workloads.md#rebuild). */
export const DEFAULT_REBUILD_RATE = 10;
export const DEFAULT_TAINT_EVICTION_CONFIG: TaintEvictionConfig = { rebuildRate: DEFAULT_REBUILD_RATE, workers: 8 };

export interface TaintEvictionDeps {
  client: ApiClient;
  nodes: Pick<Informer<Node>, 'onEvent' | 'waitForSync' | 'get' | 'list'>;
  pods: Pick<Informer<Pod>, 'onEvent' | 'waitForSync' | 'get'>;
  clock: Clock;
  log: Logger;
  metrics?: TaintEvictionMetrics;
  config?: Partial<TaintEvictionConfig>;
  identity?: string;
}

/**
 * Kubernetes' taint-eviction controller (docs/workloads.md#taint-based-eviction). Every bound pod on a node with a
 * NoExecute taint is judged by `evictionTime`: deleted at once, deleted when its toleration runs out (a timer on the
 * injected clock), or left alone. A pending eviction is cancelled when the taint goes or is tolerated for good. The
 * timer only wakes the pod up: the pod is judged again from the caches right before it is deleted, so a taint lifted
 * in the meantime (the node came back, master disruption) cancels it. Deletions are ordinary graceful DELETEs; a pod
 * already terminating is never deleted again. On start (a restart or a new leader term), every eviction is rebuilt
 * from the taints' timeAdded, and those already overdue are released at `rebuildRate`, not all at once.
 */
export class TaintEvictionController {
  readonly #deps: TaintEvictionDeps;
  readonly #cfg: TaintEvictionConfig;
  readonly #queue: WorkQueue<string>;
  readonly #byNode: PodIndex;
  /** Pending evictions: pod key → when (wall ms). */
  readonly #scheduled = new Map<string, number>();
  /** Per node, when this process first saw each NoExecute taint that has no timeAdded (wall ms). */
  readonly #firstSeen = new Map<string, Map<string, number>>();
  /** Overdue at start, in release order; a key leaves it when released or cancelled. */
  readonly #backlog = new Set<string>();
  /** Released from the backlog: may be deleted at its next judgement. */
  readonly #released = new Set<string>();
  readonly #events: EventRecorder;
  readonly #metrics: TaintEvictionMetrics;
  #started = false;

  constructor(deps: TaintEvictionDeps) {
    this.#deps = deps;
    this.#cfg = { ...DEFAULT_TAINT_EVICTION_CONFIG, ...deps.config };
    this.#queue = new WorkQueue(deps.clock, { baseMs: 100, maxMs: 10_000 });
    this.#metrics = deps.metrics ?? new TaintEvictionMetrics();
    this.#events = new EventRecorder({
      client: deps.client,
      clock: deps.clock,
      log: deps.log,
      component: TAINT_EVICTION_CONTROLLER_COMPONENT,
      ...(deps.identity === undefined ? {} : { host: deps.identity }),
    });
    this.#byNode = new PodIndex(deps.pods, boundNodeOf);
    deps.nodes.onEvent((type, node, old) => this.#onNode(type, node, old));
    deps.pods.onEvent((type, pod) => this.#onPod(type, pod));
  }

  /** Pending evictions (scheduled and in the rebuild backlog), for tests and metrics. */
  get pending(): number {
    return this.#scheduled.size + this.#backlog.size;
  }

  /** When the pod's eviction is due (wall ms), if one is scheduled. */
  scheduledAt(podKey: string): number | undefined {
    return this.#scheduled.get(podKey);
  }

  async run(signal: AbortSignal): Promise<void> {
    const { nodes, pods, clock, log } = this.#deps;
    try {
      await Promise.all([nodes.waitForSync(signal), pods.waitForSync(signal)]);
    } catch {
      return;
    }
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    this.#rebuild();
    this.#started = true;
    const housekeeping = runEvery(clock, 1_000, signal, log, 'taint eviction events', () => {
      this.#updateGauges();
      return this.#events.flush();
    });
    await Promise.all([
      this.#releaseBacklog(signal),
      runWorkers(
        this.#queue,
        this.#cfg.workers,
        (key) => this.#judge(key),
        (key, err) => log.warn({ err, pod: key }, 'evicting the pod failed; trying again with backoff'),
        signal,
      ),
    ]);
    await housekeeping;
    await this.#events.flush();
  }

  /**
   * docs/workloads.md#rebuild: judge every pod on a NoExecute-tainted node from the caches. Evictions due later are
   * scheduled from the taints' timeAdded; those already due go to the backlog, earliest first.
   */
  #rebuild(): void {
    const now = this.#deps.clock.now();
    const overdue: Array<{ key: string; at: number }> = [];
    for (const node of this.#deps.nodes.list()) {
      if (noExecuteTaints(node).length === 0) continue;
      this.#noteTaints(node);
      for (const key of this.#byNode.get(node.metadata.name)) {
        const pod = this.#deps.pods.get(key);
        if (pod === undefined || isTerminating(pod)) continue;
        const when = this.#decide(pod, node);
        if (when.kind === 'now') overdue.push({ key, at: -Infinity });
        else if (when.kind === 'at' && when.at <= now) overdue.push({ key, at: when.at });
        else if (when.kind === 'at') this.#schedule(key, when.at);
      }
    }
    overdue.sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : 1));
    for (const { key } of overdue) this.#backlog.add(key);
    if (overdue.length > 0) {
      this.#deps.log.info(
        { overdue: overdue.length, ratePerSecond: this.#cfg.rebuildRate },
        'evictions overdue at start; releasing them at the rebuild rate',
      );
    }
    this.#updateGauges();
  }

  async #releaseBacklog(signal: AbortSignal): Promise<void> {
    const gapMs = 1000 / this.#cfg.rebuildRate;
    while (!signal.aborted && this.#backlog.size > 0) {
      const key = this.#backlog.values().next().value as string;
      this.#backlog.delete(key);
      this.#released.add(key);
      this.#queue.add(key);
      this.#updateGauges();
      if (this.#backlog.size === 0) break;
      try {
        await this.#deps.clock.sleep(gapMs, signal);
      } catch {
        return;
      }
    }
  }

  #onNode(type: 'ADDED' | 'MODIFIED' | 'DELETED', node: Node, old: Node | undefined): void {
    const name = node.metadata.name;
    if (type === 'DELETED') {
      this.#firstSeen.delete(name);
      // Its pods are the pod collector's: drop their evictions without a word.
      for (const key of this.#byNode.get(name)) this.#forget(key);
      return;
    }
    this.#noteTaints(node);
    if (!this.#started || !noExecuteChanged(old, node)) return;
    for (const key of this.#byNode.get(name)) this.#queue.add(key);
  }

  #onPod(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
    const key = objectKey(pod.metadata);
    if (type === 'DELETED' || isTerminating(pod)) {
      this.#forget(key);
      return;
    }
    if (!this.#started) return;
    const node = boundNodeOf(pod);
    if (node === undefined) return;
    if (this.#scheduled.has(key) || noExecuteTaints(this.#deps.nodes.get(node)).length > 0) this.#queue.add(key);
  }

  /** Judges one pod now: delete, schedule, cancel or leave it. */
  async #judge(key: string): Promise<void> {
    const pod = this.#deps.pods.get(key);
    const nodeName = pod === undefined ? undefined : boundNodeOf(pod);
    const node = nodeName === undefined ? undefined : this.#deps.nodes.get(nodeName);
    if (pod === undefined || isTerminating(pod) || node === undefined) {
      this.#forget(key);
      return;
    }
    const when = this.#decide(pod, node);
    if (when.kind === 'none' || when.kind === 'never') {
      this.#cancel(key, pod);
      return;
    }
    const now = this.#deps.clock.now();
    if (when.kind === 'at' && when.at > now) {
      this.#backlog.delete(key);
      this.#released.delete(key);
      this.#schedule(key, when.at);
      return;
    }
    if (this.#backlog.has(key)) return;
    await this.#evict(key, pod);
  }

  #decide(pod: Pod, node: Node): ReturnType<typeof evictionTime> {
    const seen = this.#firstSeen.get(node.metadata.name);
    const now = this.#deps.clock.now();
    return evictionTime(pod.spec.tolerations, noExecuteTaints(node), (t: Taint) => seen?.get(taintId(t)) ?? now);
  }

  async #evict(key: string, pod: Pod): Promise<void> {
    this.#scheduled.delete(key);
    this.#released.delete(key);
    this.#updateGauges();
    this.#events.emit(podObject(pod), 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    try {
      await this.#deps.client.pods(pod.metadata.namespace).delete(pod.metadata.name);
    } catch (err) {
      if (isReason(err, 'NotFound')) return;
      throw err;
    }
    this.#metrics.podDeletions.inc();
  }

  /**
   * Always (re)arms the timer: the queue keeps only the earliest delay per key, so this costs nothing when one is
   * pending, and when the timer has just fired a little before the wall clock reached `at` (it waits on the
   * monotonic clock) skipping it would drop the eviction for good.
   */
  #schedule(key: string, at: number): void {
    this.#scheduled.set(key, at);
    this.#queue.addAfter(key, at - this.#deps.clock.now());
    this.#updateGauges();
  }

  /** The taint went, or is tolerated for good: a pending eviction is called off, with an event. */
  #cancel(key: string, pod: Pod): void {
    const scheduled = this.#scheduled.delete(key);
    const backlogged = this.#backlog.delete(key);
    const released = this.#released.delete(key);
    if (!scheduled && !backlogged && !released) return;
    this.#updateGauges();
    this.#events.emit(podObject(pod), 'Normal', 'TaintManagerEvictionCancelled', `Cancelling deletion of Pod ${key}`);
  }

  /** The pod is gone, terminating, or its node is gone: nothing is left to evict. */
  #forget(key: string): void {
    const had = this.#scheduled.delete(key);
    const backlogged = this.#backlog.delete(key);
    this.#released.delete(key);
    if (had || backlogged) this.#updateGauges();
  }

  /** Remembers when this process first saw each NoExecute taint of the node that has no timeAdded. */
  #noteTaints(node: Node): void {
    const name = node.metadata.name;
    const taints = noExecuteTaints(node).filter((t) => t.timeAdded === undefined);
    if (taints.length === 0) {
      this.#firstSeen.delete(name);
      return;
    }
    const before = this.#firstSeen.get(name);
    const now = this.#deps.clock.now();
    const seen = new Map<string, number>();
    for (const t of taints) seen.set(taintId(t), before?.get(taintId(t)) ?? now);
    this.#firstSeen.set(name, seen);
  }

  #updateGauges(): void {
    this.#metrics.pending.set(this.pending);
    this.#metrics.rebuildBacklog.set(this.#backlog.size);
  }
}

function podObject(pod: Pod): { kind: string; name: string; namespace: string; uid: string } {
  return { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid };
}
