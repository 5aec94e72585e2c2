import type { ApiClient } from '../../client/api-client.js';
import type { Informer } from '../../client/informer.js';
import { formatTime, type Clock } from '../../core/clock.js';
import { isReason } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Node } from '../../core/node.js';
import { objectKey } from '../../core/object-key.js';
import { isTerminated, isTerminating, type Pod, type PodCondition } from '../../core/pod.js';
import { SCHEDULER_COMPONENT } from '../../core/event-sources.js';
import { EventRecorder } from '../node-lifecycle/events.js';
import { runEvery } from '../periodic.js';
import { boundNodeOf } from '../pod-index.js';
import { failedSchedulingMessage } from './fit-error.js';
import { filterNode, requirementsOf, type PodRequirements } from './filters.js';
import { mayHelpScheduling, type NodeInfo } from './node-info.js';
import { numFeasibleNodesToFind } from './node-order.js';
import { POD_INITIAL_BACKOFF_MS, POD_MAX_BACKOFF_MS } from './pod-backoff.js';
import { SchedulerCache } from './scheduler-cache.js';
import { SchedulerMetrics } from './metrics.js';
import { SchedulingQueue } from './scheduling-queue.js';
import { BestNode } from './scores.js';

export interface SchedulerConfig {
  /** kube-scheduler's percentageOfNodesToScore; 0 is adaptive (docs/workloads.md#sampling). */
  percentageOfNodesToScore: number;
  /** Bindings in flight at once; the loop waits for a free slot before it places the next pod. */
  bindConcurrency: number;
  podInitialBackoffMs: number;
  podMaxBackoffMs: number;
  /** kube-scheduler's podMaxInUnschedulablePodsDuration: an unschedulable pod is tried again at least this often. */
  maxUnschedulableMs: number;
}

export const DEFAULT_SCHEDULER_CONFIG: SchedulerConfig = {
  percentageOfNodesToScore: 0,
  bindConcurrency: 64,
  podInitialBackoffMs: POD_INITIAL_BACKOFF_MS,
  podMaxBackoffMs: POD_MAX_BACKOFF_MS,
  maxUnschedulableMs: 5 * 60_000,
};

/** kube-scheduler checks for pods parked too long every 30 s. */
const LEFTOVER_CHECK_MS = 30_000;

export interface SchedulerDeps {
  client: ApiClient;
  nodes: Pick<Informer<Node>, 'onEvent' | 'waitForSync'>;
  pods: Pick<Informer<Pod>, 'onEvent' | 'waitForSync' | 'get'>;
  clock: Clock;
  log: Logger;
  metrics?: SchedulerMetrics;
  config?: Partial<SchedulerConfig>;
  identity?: string;
}

type Found = { node: NodeInfo } | { node: undefined; message: string };

/**
 * The scheduler (docs/workloads.md#scheduler): binds every pending pod (no `spec.nodeName`, not terminating) to the best
 * feasible node. Pods wait in a work queue; one that fits nowhere is parked as unschedulable and tried again when a
 * node changes in a way that could help, never before its backoff (1 s doubling to 10 s) ends, and at least every
 * 5 minutes. Placement is synchronous over the scheduler cache; bindings go out concurrently, up to
 * `bindConcurrency` at once, each assumed in the cache the moment it is sent.
 */
export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #cfg: SchedulerConfig;
  readonly #cache = new SchedulerCache();
  readonly #queue: SchedulingQueue;
  readonly #events: EventRecorder;
  readonly #metrics: SchedulerMetrics;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #reasons = new Map<string, number>();
  readonly #best = new BestNode();
  #nextStart = 0;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    this.#cfg = { ...DEFAULT_SCHEDULER_CONFIG, ...deps.config };
    this.#queue = new SchedulingQueue(deps.clock, {
      initialBackoffMs: this.#cfg.podInitialBackoffMs,
      maxBackoffMs: this.#cfg.podMaxBackoffMs,
      maxUnschedulableMs: this.#cfg.maxUnschedulableMs,
    });
    this.#metrics = deps.metrics ?? new SchedulerMetrics();
    this.#events = new EventRecorder({
      client: deps.client,
      clock: deps.clock,
      log: deps.log,
      component: SCHEDULER_COMPONENT,
      limits: { qps: 100, burst: 1000 },
      ...(deps.identity === undefined ? {} : { host: deps.identity }),
    });
    deps.nodes.onEvent((type, node) => this.#onNode(type, node));
    deps.pods.onEvent((type, pod, old) => this.#onPod(type, pod, old));
  }

  /** Pods parked as unschedulable (for tests and metrics). */
  get unschedulable(): number {
    return this.#queue.counts.unschedulable;
  }

  get cache(): SchedulerCache {
    return this.#cache;
  }

  /** Waits for both caches, then schedules until `signal` aborts; in-flight bindings finish before it resolves. */
  async run(signal: AbortSignal): Promise<void> {
    try {
      await Promise.all([this.#deps.nodes.waitForSync(signal), this.#deps.pods.waitForSync(signal)]);
    } catch {
      return;
    }
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    let lastLeftoverCheck = this.#deps.clock.monotonic();
    const housekeeping = runEvery(this.#deps.clock, 1_000, signal, this.#deps.log, 'scheduler housekeeping', () => {
      const now = this.#deps.clock.monotonic();
      if (now - lastLeftoverCheck >= LEFTOVER_CHECK_MS) {
        lastLeftoverCheck = now;
        this.#queue.flushLeftovers();
      }
      for (const [queue, n] of Object.entries(this.#queue.counts)) this.#metrics.pending.set({ queue }, n);
      return this.#events.flush();
    });
    for (;;) {
      const key = await this.#queue.get(signal);
      if (key === undefined) break;
      try {
        this.#scheduleOne(key);
      } catch (err) {
        this.#deps.log.error({ err, pod: key }, 'scheduling a pod failed; trying it again after its backoff');
        this.#retryAfterError(key);
      } finally {
        this.#queue.done(key);
      }
      while (this.#inFlight.size >= this.#cfg.bindConcurrency) await Promise.race(this.#inFlight);
    }
    await Promise.allSettled([...this.#inFlight]);
    await housekeeping;
    await this.#events.flush();
  }

  #onNode(type: 'ADDED' | 'MODIFIED' | 'DELETED', node: Node): void {
    if (type === 'DELETED') {
      this.#cache.removeNode(node.metadata.name);
      return;
    }
    const { before, after } = this.#cache.setNode(node);
    if (before === undefined || mayHelpScheduling(before, after)) this.#queue.unparkAll();
  }

  #onPod(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod, old: Pod | undefined): void {
    const key = objectKey(pod.metadata);
    const heldRoom = old !== undefined && boundNodeOf(old) !== undefined && !isTerminated(old);
    if (type === 'DELETED') {
      this.#cache.setPod(key, undefined);
      this.#queue.forget(key);
      if (heldRoom || (boundNodeOf(pod) !== undefined && !isTerminated(pod))) this.#queue.unparkAll();
      return;
    }
    this.#cache.setPod(key, pod);
    if (boundNodeOf(pod) !== undefined || isTerminating(pod)) {
      this.#queue.forget(key);
      if (heldRoom && isTerminated(pod)) this.#queue.unparkAll();
      return;
    }
    if (!this.#queue.isParked(key)) this.#queue.add(key);
    else if (old !== undefined && schedulingInputsChanged(old, pod)) this.#queue.unpark(key);
  }

  #scheduleOne(key: string): void {
    // A parked pod can only come out of a timer set before it was parked: it waits for a node change instead.
    if (this.#queue.isParked(key)) return;
    const pod = this.#deps.pods.get(key);
    if (pod === undefined || boundNodeOf(pod) !== undefined || isTerminating(pod) || this.#cache.isAssumed(key)) {
      return;
    }
    const found = this.#findNode(requirementsOf(pod));
    if (found.node === undefined) {
      this.#unschedulable(key, pod, found.message);
      return;
    }
    this.#bind(key, pod, found.node.name);
  }

  /**
   * Filters nodes from where the last search stopped, in the cache's zone-interleaved order, until it has found
   * numFeasibleNodesToFind feasible ones or seen every node, and keeps the best as it goes: no per-node allocation.
   */
  #findNode(req: PodRequirements): Found {
    const order = this.#cache.order();
    const n = order.length;
    const toFind = numFeasibleNodesToFind(n, this.#cfg.percentageOfNodesToScore);
    const ownerZones = this.#cache.ownerZones(req.owner);
    const reasons = this.#reasons;
    reasons.clear();
    const start = n === 0 ? 0 : this.#nextStart % n;
    const best = this.#best;
    best.reset();
    let found = 0;
    let checked = 0;
    while (checked < n && found < toFind) {
      const info = order[(start + checked) % n] as NodeInfo;
      checked++;
      const why = filterNode(req, info);
      if (why !== undefined) {
        reasons.set(why, (reasons.get(why) ?? 0) + 1);
        continue;
      }
      found++;
      best.offer(req, info, ownerZones);
    }
    this.#nextStart = n === 0 ? 0 : (start + checked) % n;
    const chosen = best.info;
    best.reset();
    return chosen !== undefined ? { node: chosen } : { node: undefined, message: failedSchedulingMessage(n, reasons) };
  }

  #unschedulable(key: string, pod: Pod, message: string): void {
    this.#metrics.attempts.inc({ result: 'unschedulable' });
    this.#queue.parkUnschedulable(key);
    this.#events.emit(podObject(pod), 'Warning', 'FailedScheduling', message);
    const current = pod.status.conditions?.find((c) => c.type === 'PodScheduled');
    if (current?.status === 'False' && current.reason === 'Unschedulable' && current.message === message) return;
    const condition: PodCondition = {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message,
      lastTransitionTime: formatTime(this.#deps.clock.now()),
    };
    const conditions = [...(pod.status.conditions ?? []).filter((c) => c.type !== 'PodScheduled'), condition];
    this.#track(
      this.#deps.client
        .pods(pod.metadata.namespace)
        .updateStatus({ ...pod, status: { ...pod.status, conditions } })
        .then(
          () => undefined,
          (err: unknown) => this.#deps.log.debug({ err, pod: key }, 'could not record PodScheduled=False'),
        ),
    );
  }

  #bind(key: string, pod: Pod, nodeName: string): void {
    this.#cache.assume(key, pod, nodeName);
    const { namespace, name } = pod.metadata;
    this.#metrics.bindsInFlight.inc();
    const binding = this.#deps.client
      .pods(namespace)
      .bind(name, nodeName)
      .then(
        () => {
          this.#metrics.attempts.inc({ result: 'scheduled' });
          this.#queue.clearBackoff(key);
          this.#events.emit(podObject(pod), 'Normal', 'Scheduled', `Successfully assigned ${key} to ${nodeName}`);
        },
        (err: unknown) => {
          this.#cache.forget(key);
          // Bound by someone else, being deleted, or gone: the informer will say so; nothing to retry.
          if (isReason(err, 'Conflict') || isReason(err, 'NotFound')) return;
          this.#deps.log.warn(
            { err, pod: key, node: nodeName },
            'binding failed; trying the pod again after its backoff',
          );
          this.#retryAfterError(key);
        },
      )
      .finally(() => this.#metrics.bindsInFlight.dec());
    this.#track(binding);
  }

  #retryAfterError(key: string): void {
    this.#metrics.attempts.inc({ result: 'error' });
    this.#queue.retryAfterError(key);
  }

  /** Counts `work` against bindConcurrency until it settles (it never rejects: callers handle their errors). */
  #track(work: Promise<void>): void {
    const tracked: Promise<void> = work.finally(() => {
      this.#inFlight.delete(tracked);
    });
    this.#inFlight.add(tracked);
  }
}

function podObject(pod: Pod): { kind: string; name: string; namespace: string; uid: string } {
  return { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid };
}

/** A change of the pod that can change where it fits (tolerations may be added to a pending pod). */
function schedulingInputsChanged(old: Pod, pod: Pod): boolean {
  return (
    JSON.stringify(old.spec.tolerations ?? []) !== JSON.stringify(pod.spec.tolerations ?? []) ||
    JSON.stringify(old.spec.nodeSelector ?? {}) !== JSON.stringify(pod.spec.nodeSelector ?? {})
  );
}
