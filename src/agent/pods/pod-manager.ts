import type { ApiClient } from '../../client/api-client.js';
import type { BackoffPolicy } from '../../client/backoff.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { objectKey } from '../../core/object-key.js';
import type { Pod } from '../../core/pod.js';
import { errorMessage, FailureLog } from '../backoff.js';
import { needsProcesses, PlaceholderPod } from './placeholder-pod.js';
import type { PodRuntime } from './pod-runtime.js';
import type { PodSink, PodSource } from './pod-source.js';
import { PodSyncQueue } from './pod-sync-queue.js';
import { PodWorker, type PodWorkerDeps, type Refusal } from './pod-worker.js';
import type { ProcessLauncher } from './process-launcher.js';
import { ProcessPod } from './process-pod.js';

/** The reason of a pod that needs the process driver on an agent started without it. */
export const PROCESS_PODS_DISABLED = 'ProcessPodsDisabled';

export interface PodManagerConfig {
  nodeName: string;
  /** `--allow-process-pods`: run containers that have a command as child processes. */
  allowProcessPods: boolean;
  /** `--crash-loop-backoff` / `--crash-loop-backoff-max`. */
  crashLoopBackoff: BackoffPolicy;
}

export interface PodManagerDeps {
  client: ApiClient;
  clock: Clock;
  log: Logger;
  config: PodManagerConfig;
  /** Where the pods bound to this node come from. */
  source: PodSource;
  /** The node's address (InternalIP), reported as each pod's hostIP. */
  hostIP: () => string | undefined;
  /** Starts container processes; required when process pods are allowed. */
  launcher?: ProcessLauncher;
}

export function processPodsDisabledMessage(pod: Pod): string {
  return (
    `pod ${objectKey(pod.metadata)} has containers with a command, and this agent does not run commands: ` +
    'start the agent with --allow-process-pods to run them as processes (docs/pods.md#process-pods), ' +
    'or remove the command to make the pod a placeholder'
  );
}

/**
 * The agent's pods: one worker per pod bound to the node, fed by one watch. A pod added starts; one deleted
 * (deletionTimestamp) stops and is removed; one gone from the API, or from a relist after an outage, is stopped.
 * While the API is unreachable nothing changes: the pods keep running, because the agent cannot know whether they
 * were replaced (docs/pods.md#partitions). On shutdown process pods stop with the agent.
 */
export class PodManager implements PodSink {
  readonly #deps: PodManagerDeps;
  readonly #workers = new Map<string, PodWorker>();
  readonly #leaving = new Set<Promise<void>>();
  #workerDeps: PodWorkerDeps | undefined;

  constructor(deps: PodManagerDeps) {
    if (deps.config.allowProcessPods && deps.launcher === undefined) {
      throw new Error('process pods are allowed but no process launcher was given');
    }
    this.#deps = { ...deps, log: deps.log.child({ component: 'pods' }) };
  }

  /** Runs the pods of the node until the signal aborts, then stops the process pods and resolves. */
  async run(signal: AbortSignal): Promise<void> {
    const { client, clock, log, config } = this.#deps;
    const queue = new PodSyncQueue(clock, signal);
    this.#workerDeps = {
      client,
      clock,
      log,
      hostIP: this.#deps.hostIP,
      runtimeFor: (pod, startTime, onChange) => this.#runtimeFor(pod, startTime, onChange),
      statusFailures: new FailureLog(log, clock, `writing the pods of node ${config.nodeName}`),
      signal,
      enqueue: (worker) => queue.add(worker),
    };
    try {
      await this.#deps.source.run(this, signal);
    } finally {
      await this.#shutdown();
    }
  }

  sync(pods: readonly Pod[]): void {
    const seen = new Set<string>();
    for (const pod of pods) {
      seen.add(objectKey(pod.metadata));
      this.apply('MODIFIED', pod);
    }
    for (const [key, worker] of this.#workers) if (!seen.has(key)) this.#remove(key, worker);
  }

  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
    const key = objectKey(pod.metadata);
    let worker = this.#workers.get(key);
    if (type === 'DELETED' || pod.spec.nodeName !== this.#deps.config.nodeName) {
      if (worker !== undefined && worker.uid === pod.metadata.uid) this.#remove(key, worker);
      return;
    }
    if (worker !== undefined && worker.uid !== pod.metadata.uid) {
      // Deleted and created again under the same name while we looked away: a different pod.
      this.#remove(key, worker);
      worker = undefined;
    }
    if (worker !== undefined) {
      worker.update(pod);
      return;
    }
    const deps = this.#workerDeps;
    if (deps === undefined) throw new Error('PodManager.apply before run()');
    worker = new PodWorker(deps, pod);
    this.#workers.set(key, worker);
    worker.start();
  }

  /** Pods bound to the node and not Succeeded or Failed (Node status.podCount). */
  podCount(): number {
    let n = 0;
    for (const worker of this.#workers.values()) if (worker.occupiesNode()) n++;
    return n;
  }

  #runtimeFor(pod: Pod, startTime: string, onChange: () => void): PodRuntime | Refusal {
    if (!needsProcesses(pod)) return new PlaceholderPod(pod, startTime);
    const launcher = this.#deps.config.allowProcessPods ? this.#deps.launcher : undefined;
    if (launcher === undefined) return { reason: PROCESS_PODS_DISABLED, message: processPodsDisabledMessage(pod) };
    const { clock, config } = this.#deps;
    const deps = { launcher, clock, backoff: config.crashLoopBackoff, nodeName: config.nodeName, onChange };
    this.#deps.log.info({ pod: objectKey(pod.metadata) }, `starting the processes of pod ${objectKey(pod.metadata)}`);
    return new ProcessPod(deps, pod, startTime);
  }

  #remove(key: string, worker: PodWorker): void {
    this.#workers.delete(key);
    const leaving = worker
      .removed()
      .catch((err: unknown) => this.#deps.log.error({ pod: key, err: errorMessage(err) }, `stopping pod ${key} failed`))
      .finally(() => this.#leaving.delete(leaving));
    this.#leaving.add(leaving);
  }

  async #shutdown(): Promise<void> {
    const stops = [...this.#workers.values()].map((w) => w.shutdown());
    await Promise.allSettled([...stops, ...this.#leaving]);
  }
}
