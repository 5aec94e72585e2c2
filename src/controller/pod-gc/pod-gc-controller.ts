import type { ApiClient } from '../../client/api-client.js';
import type { Informer } from '../../client/informer.js';
import type { Clock } from '../../core/clock.js';
import { isReason } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Node } from '../../core/node.js';
import { splitObjectKey } from '../../core/object-key.js';
import type { Pod } from '../../core/pod.js';
import { runEvery } from '../periodic.js';
import { boundNodeOf, PodIndex } from '../pod-index.js';
import { runWorkers, WorkQueue } from '../work-queue.js';
import { PodGcMetrics } from './metrics.js';

/** kube-controller-manager's gcCheckPeriod: how often every pod's node is checked even without an event. */
export const POD_GC_PERIOD_MS = 20_000;

export interface PodGcDeps {
  client: ApiClient;
  nodes: Pick<Informer<Node>, 'onEvent' | 'waitForSync' | 'get'>;
  pods: Pick<Informer<Pod>, 'onEvent' | 'waitForSync'>;
  clock: Clock;
  log: Logger;
  metrics?: PodGcMetrics;
}

/**
 * Kubernetes' PodGC for orphaned pods (docs/workloads.md#pod-gc): a pod bound to a node that no longer exists is
 * deleted at once (`gracePeriodSeconds: 0`), since no agent is left to stop it; a Deployment then replaces it.
 * Nodes are the work items: a node deleted, or a pod bound to a node the cache does not know, queues that node; so
 * does a sweep every 20 s. Before deleting, the node's absence is confirmed by a live read (the cache may simply lag
 * behind a node that has just registered; upstream waits out a 40 s quarantine for the same reason).
 */
export class PodGcController {
  readonly #deps: PodGcDeps;
  readonly #queue: WorkQueue<string>;
  readonly #byNode: PodIndex;
  readonly #metrics: PodGcMetrics;

  constructor(deps: PodGcDeps) {
    this.#deps = deps;
    this.#queue = new WorkQueue(deps.clock, { baseMs: 500, maxMs: 30_000 });
    this.#metrics = deps.metrics ?? new PodGcMetrics();
    this.#byNode = new PodIndex(deps.pods, boundNodeOf);
    deps.nodes.onEvent((type, node) => {
      if (type === 'DELETED') this.#queue.add(node.metadata.name);
    });
    deps.pods.onEvent((type, pod) => {
      const node = type === 'DELETED' ? undefined : boundNodeOf(pod);
      if (node !== undefined && this.#deps.nodes.get(node) === undefined) this.#queue.add(node);
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    const { nodes, pods, clock, log } = this.#deps;
    try {
      await Promise.all([nodes.waitForSync(signal), pods.waitForSync(signal)]);
    } catch {
      return;
    }
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    this.#sweep();
    const sweeping = runEvery(clock, POD_GC_PERIOD_MS, signal, log, 'pod collection sweep', () => this.#sweep());
    await runWorkers(
      this.#queue,
      2,
      (node) => this.#collect(node),
      (node, err) => log.warn({ err, node }, 'collecting the pods of a deleted node failed; trying again with backoff'),
      signal,
    );
    await sweeping;
  }

  /** Queues every node that holds pods and is missing from the node cache. */
  #sweep(): void {
    for (const node of this.#byNode.values()) if (this.#deps.nodes.get(node) === undefined) this.#queue.add(node);
  }

  async #collect(nodeName: string): Promise<void> {
    if (this.#deps.nodes.get(nodeName) !== undefined || this.#byNode.get(nodeName).size === 0) return;
    try {
      await this.#deps.client.nodes.get(nodeName);
      return;
    } catch (err) {
      if (!isReason(err, 'NotFound')) throw err;
    }
    const failures: unknown[] = [];
    for (const key of [...this.#byNode.get(nodeName)]) {
      const { namespace, name } = splitObjectKey(key);
      try {
        await this.#deps.client.pods(namespace).delete(name, { gracePeriodSeconds: 0 });
        this.#metrics.orphansDeleted.inc();
        this.#deps.log.info({ pod: key, node: nodeName }, 'deleted a pod whose node no longer exists');
      } catch (err) {
        if (!isReason(err, 'NotFound')) failures.push(err);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}
