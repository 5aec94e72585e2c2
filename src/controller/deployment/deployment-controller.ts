import type { ApiClient } from '../../client/api-client.js';
import type { Informer } from '../../client/informer.js';
import { parseTime, type Clock } from '../../core/clock.js';
import type { Deployment } from '../../core/deployment.js';
import { isReason } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { readyCondition, type Node } from '../../core/node.js';
import { objectKey } from '../../core/object-key.js';
import { isTerminated, isTerminating, type Pod } from '../../core/pod.js';
import type { Random } from '../../core/random.js';
import { DEPLOYMENT_CONTROLLER_COMPONENT } from '../../core/event-sources.js';
import { EventRecorder } from '../node-lifecycle/events.js';
import { runEvery } from '../periodic.js';
import { controllerOf, PodIndex } from '../pod-index.js';
import { runWorkers, WorkQueue } from '../work-queue.js';
import { hashOf, isActive, isAvailable, type NodeTrust } from './active-pods.js';
import { computeStatus, nextAvailableIn, statusChanged } from './deployment-status.js';
import { Expectations } from './expectations.js';
import { DeploymentMetrics } from './metrics.js';
import { podFromTemplate, podName, templateHash } from './pod-template.js';
import { planStep, type OldGroup, type PodView, type RolloutState, type Step } from './rollout.js';

export interface DeploymentControllerConfig {
  /** kube-controller-manager's --concurrent-deployment-syncs. */
  workers: number;
  /** Kubernetes' burstReplicas: pods created or deleted for one Deployment in one sync, at most. */
  burstReplicas: number;
}

export const DEFAULT_DEPLOYMENT_CONFIG: DeploymentControllerConfig = { workers: 5, burstReplicas: 500 };

export interface DeploymentControllerDeps {
  client: ApiClient;
  deployments: Pick<Informer<Deployment>, 'onEvent' | 'waitForSync' | 'get'>;
  pods: Pick<Informer<Pod>, 'onEvent' | 'waitForSync' | 'get'>;
  nodes: Pick<Informer<Node>, 'waitForSync' | 'get'>;
  clock: Clock;
  log: Logger;
  random: Random;
  metrics?: DeploymentMetrics;
  config?: Partial<DeploymentControllerConfig>;
  identity?: string;
}

/**
 * The deployment controller (docs/workloads.md#deployments): keeps `spec.replicas` pods of the current template
 * for every Deployment, rolls a template change out (RollingUpdate or Recreate), and writes the status counts. A
 * Deployment's pods are the pods whose controller owner reference names its uid; they play the part of
 * Kubernetes' ReplicaSets, one per `pod-template-hash`. Deleting a Deployment is the server's business: it deletes
 * the pods the Deployment owns, and collects any left behind (the controller never deletes pods for that).
 */
export class DeploymentController {
  readonly #deps: DeploymentControllerDeps;
  readonly #cfg: DeploymentControllerConfig;
  readonly #queue: WorkQueue<string>;
  readonly #byOwner: PodIndex;
  readonly #expectations: Expectations;
  readonly #events: EventRecorder;
  readonly #metrics: DeploymentMetrics;

  constructor(deps: DeploymentControllerDeps) {
    this.#deps = deps;
    this.#cfg = { ...DEFAULT_DEPLOYMENT_CONFIG, ...deps.config };
    this.#queue = new WorkQueue(deps.clock);
    this.#expectations = new Expectations(deps.clock);
    this.#metrics = deps.metrics ?? new DeploymentMetrics();
    this.#events = new EventRecorder({
      client: deps.client,
      clock: deps.clock,
      log: deps.log,
      component: DEPLOYMENT_CONTROLLER_COMPONENT,
      ...(deps.identity === undefined ? {} : { host: deps.identity }),
    });
    this.#byOwner = new PodIndex(deps.pods, (pod) => {
      const owner = controllerOf(pod);
      return owner?.kind === 'Deployment' ? owner.uid : undefined;
    });
    deps.deployments.onEvent((_type, d) => this.#queue.add(objectKey(d.metadata)));
    deps.pods.onEvent((type, pod) => this.#onPod(type, pod));
  }

  /** Waits for the caches, then syncs Deployments until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { deployments, pods, nodes, clock, log } = this.#deps;
    try {
      await Promise.all([deployments.waitForSync(signal), pods.waitForSync(signal), nodes.waitForSync(signal)]);
    } catch {
      return;
    }
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    const housekeeping = runEvery(clock, 1_000, signal, log, 'deployment controller events', () =>
      this.#events.flush(),
    );
    await runWorkers(
      this.#queue,
      this.#cfg.workers,
      async (key) => {
        await this.sync(key);
        this.#metrics.syncs.inc({ result: 'success' });
      },
      (key, err) => {
        this.#metrics.syncs.inc({ result: 'error' });
        log.warn({ err, deployment: key }, 'syncing the deployment failed; trying again with backoff');
      },
      signal,
    );
    await housekeeping;
    await this.#events.flush();
  }

  /** One sync of the Deployment `namespace/name` (exported for tests: the worker loop calls it). */
  async sync(key: string): Promise<void> {
    const d = this.#deps.deployments.get(key);
    if (d === undefined) {
      this.#expectations.delete(key);
      return;
    }
    const pods = this.#podsOf(d);
    const hash = templateHash(d.spec.template);
    const now = this.#deps.clock.now();
    if (this.#expectations.satisfied(key)) {
      const step = planStep(d, this.#rolloutState(d, pods, hash, now));
      if (step.create > 0 || step.remove.length > 0) await this.#carryOut(key, d, hash, step);
    }
    const status = computeStatus(d, pods, hash, now);
    if (statusChanged(d.status, status)) {
      await this.#deps.client.deployments(d.metadata.namespace).updateStatus({ ...d, status });
    }
    const wait = nextAvailableIn(pods, d.spec.minReadySeconds ?? 0, now);
    if (wait !== undefined) this.#queue.addAfter(key, wait);
  }

  #onPod(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
    const owner = controllerOf(pod);
    if (owner?.kind !== 'Deployment') return;
    const key = objectKey({ namespace: pod.metadata.namespace, name: owner.name });
    if (type === 'ADDED') this.#expectations.creationObserved(key);
    if (type === 'DELETED' || isTerminating(pod)) this.#expectations.deletionObserved(key, objectKey(pod.metadata));
    this.#queue.add(key);
  }

  #podsOf(d: Deployment): Pod[] {
    const pods: Pod[] = [];
    for (const key of this.#byOwner.get(d.metadata.uid)) {
      const pod = this.#deps.pods.get(key);
      if (pod !== undefined && pod.metadata.namespace === d.metadata.namespace) pods.push(pod);
    }
    return pods;
  }

  #rolloutState(d: Deployment, pods: readonly Pod[], hash: string, now: number): RolloutState {
    const minReady = d.spec.minReadySeconds ?? 0;
    const newPods: PodView[] = [];
    const groups = new Map<string, { group: OldGroup; oldest: number }>();
    let oldPodsRunning = 0;
    for (const pod of pods) {
      const h = hashOf(pod);
      if (h !== hash && !isTerminated(pod)) oldPodsRunning++;
      if (!isActive(pod)) continue;
      const view = { pod, available: isAvailable(pod, minReady, now) };
      if (h === hash) {
        newPods.push(view);
        continue;
      }
      const created = parseTime(pod.metadata.creationTimestamp);
      const entry = groups.get(h);
      if (entry === undefined) groups.set(h, { group: { hash: h, pods: [view] }, oldest: created });
      else {
        entry.group.pods.push(view);
        entry.oldest = Math.min(entry.oldest, created);
      }
    }
    const oldGroups = [...groups.values()]
      .sort((a, b) => a.oldest - b.oldest || (a.group.hash < b.group.hash ? -1 : 1))
      .map((e) => e.group);
    return { replicas: d.spec.replicas ?? 1, hash, newPods, oldGroups, oldPodsRunning, trust: this.#trust };
  }

  /** A node that is gone, not Ready or Suspect: its pods go first on scale-down. */
  readonly #trust: NodeTrust = (name) => {
    const node = this.#deps.nodes.get(name);
    if (node === undefined || readyCondition(node)?.status !== 'True') return 'doubtful';
    return node.status.conditions?.some((c) => c.type === 'Suspect' && c.status === 'True') ? 'doubtful' : 'trusted';
  };

  async #carryOut(key: string, d: Deployment, hash: string, step: Step): Promise<void> {
    const burst = this.#cfg.burstReplicas;
    const create = Math.min(step.create, burst);
    const remove = step.remove.slice(0, burst);
    this.#expectations.expect(
      key,
      create,
      remove.map((p) => objectKey(p.metadata)),
    );
    for (const s of step.scaling) {
      const verb = s.to > s.from ? 'up' : 'down';
      this.#emit(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${verb} replica set ${d.metadata.name}-${s.hash} to ${s.to}`,
      );
    }
    const results = await Promise.all([this.#createPods(key, d, hash, create), this.#deletePods(key, d, remove)]);
    const failure = results.find((r) => r !== undefined);
    if (failure !== undefined) throw failure;
  }

  /**
   * Creates `count` pods in batches of 1, 2, 4, … (Kubernetes' slowStartBatch): a failing create (a quota, a
   * name clash, an API outage) stops the rest instead of repeating the same failure hundreds of times.
   */
  async #createPods(key: string, d: Deployment, hash: string, count: number): Promise<unknown> {
    const pods = this.#deps.client.pods(d.metadata.namespace);
    let remaining = count;
    for (let batch = 1; remaining > 0; batch *= 2) {
      const n = Math.min(batch, remaining);
      remaining -= n;
      const results = await Promise.allSettled(
        Array.from({ length: n }, async () => {
          const name = podName(d.metadata.name, hash, this.#deps.random);
          try {
            await pods.create(podFromTemplate(d, hash, name));
          } catch (err) {
            this.#expectations.creationObserved(key);
            this.#emit(d, 'Warning', 'FailedCreate', `Error creating: ${messageOf(err)}`);
            throw err;
          }
          this.#metrics.podsCreated.inc();
          this.#emit(d, 'Normal', 'SuccessfulCreate', `Created pod: ${name}`);
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed !== undefined) {
        for (let i = 0; i < remaining; i++) this.#expectations.creationObserved(key);
        return failed.reason;
      }
    }
    return undefined;
  }

  async #deletePods(key: string, d: Deployment, remove: readonly Pod[]): Promise<unknown> {
    const pods = this.#deps.client.pods(d.metadata.namespace);
    const results = await Promise.allSettled(
      remove.map(async (pod) => {
        const podKey = objectKey(pod.metadata);
        try {
          await pods.delete(pod.metadata.name);
        } catch (err) {
          this.#expectations.deletionObserved(key, podKey);
          if (isReason(err, 'NotFound')) return;
          this.#emit(d, 'Warning', 'FailedDelete', `Error deleting: ${messageOf(err)}`);
          throw err;
        }
        this.#metrics.podsDeleted.inc();
        this.#emit(d, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
      }),
    );
    return results.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason;
  }

  #emit(d: Deployment, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const { name, namespace, uid } = d.metadata;
    this.#events.emit({ kind: 'Deployment', name, namespace, uid }, type, reason, message);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
