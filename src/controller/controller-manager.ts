import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import type { ApiClient } from '../client/api-client.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import type { ControllerName } from './controller-names.js';
import { DeploymentController } from './deployment/deployment-controller.js';
import { DeploymentMetrics } from './deployment/metrics.js';
import type { NodeLifecycleConfig } from './node-lifecycle/config.js';
import { NodeLifecycleMetrics } from './node-lifecycle/metrics.js';
import { NodeLifecycleController } from './node-lifecycle/node-lifecycle-controller.js';
import { PodGcMetrics } from './pod-gc/metrics.js';
import { PodGcController } from './pod-gc/pod-gc-controller.js';
import { SchedulerMetrics } from './scheduler/metrics.js';
import { Scheduler } from './scheduler/scheduler.js';
import { SharedInformers } from './shared-informers.js';
import { TaintEvictionMetrics } from './taint-eviction/metrics.js';
import { TaintEvictionController, type TaintEvictionConfig } from './taint-eviction/taint-eviction-controller.js';

export interface ControllerManagerDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  log: Logger;
  /** Which controllers run (`--controllers`). */
  enabled: ReadonlySet<ControllerName>;
  nodeLifecycle: NodeLifecycleConfig;
  taintEviction?: Partial<TaintEvictionConfig>;
  /** Where every controller's metrics are registered (once per process, whatever the number of terms). */
  metrics?: Registry;
  /** `host` of the Events the controllers write. */
  identity?: string;
  /**
   * A dry-run manager (docs/verdicts.md#dry-run): only the node lifecycle controller runs, as a dry-run that writes
   * nothing but its verdicts; the workload controllers have no dry-run and are not started.
   */
  dryRun?: boolean;
}

interface Runnable {
  run(signal: AbortSignal): Promise<void>;
}

interface Metrics {
  nodeLifecycle?: NodeLifecycleMetrics;
  scheduler?: SchedulerMetrics;
  deployment?: DeploymentMetrics;
  taintEviction?: TaintEvictionMetrics;
  podGc?: PodGcMetrics;
}

/**
 * kube-controller-manager for shepherd (docs/architecture.md#controllers): every enabled controller in one process,
 * over one set of shared informers. `run` is one term: it builds fresh informers and controllers (a new leader
 * starts from the caches, as a restart does), runs them all until the signal aborts, and stops them all together;
 * if one of them fails, the others are stopped too and the failure is thrown, so the leader gives the term up.
 * Metrics are built once, here, so a process that leads again registers nothing twice.
 */
export class ControllerManager {
  readonly #deps: ControllerManagerDeps;
  readonly #metrics: Metrics;

  constructor(deps: ControllerManagerDeps) {
    this.#deps = deps;
    const on = (name: ControllerName): boolean => deps.enabled.has(name);
    const registry = deps.metrics;
    const dryRun = deps.dryRun === true;
    this.#metrics = {
      ...(on('node-lifecycle') ? { nodeLifecycle: new NodeLifecycleMetrics(registry, { dryRun }) } : {}),
      ...(on('scheduler') ? { scheduler: new SchedulerMetrics(registry) } : {}),
      ...(on('deployment') ? { deployment: new DeploymentMetrics(registry) } : {}),
      ...(on('taint-eviction') ? { taintEviction: new TaintEvictionMetrics(registry) } : {}),
      ...(on('pod-gc') ? { podGc: new PodGcMetrics(registry) } : {}),
    };
  }

  /**
   * One term. `onSynced` runs once every informer has listed; `onNodeCachesSynced` once nodes and leases have
   * (when the node lifecycle controller runs), since node health must not wait for the workload caches.
   */
  async run(
    signal: AbortSignal,
    hooks: { onSynced?: () => void; onNodeCachesSynced?: () => void } = {},
  ): Promise<void> {
    const term = new AbortController();
    // The term of every controller and shared informer: each one waits on it (sync, sleeps, workers), so many
    // listeners are expected and each is removed when its wait ends; Node's leak warning at 10 would cry wolf.
    setMaxListeners(0, term.signal);
    const stop = (): void => term.abort(signal.reason);
    if (signal.aborted) return;
    signal.addEventListener('abort', stop, { once: true });
    const informers = new SharedInformers({
      client: this.#deps.client,
      clock: this.#deps.clock,
      random: this.#deps.random,
      log: this.#deps.log,
    });
    const controllers = this.#build(informers);
    const informing = informers.start(term.signal);
    informers.waitForSync(term.signal).then(
      () => hooks.onSynced?.(),
      () => undefined,
    );
    if (this.#deps.enabled.has('node-lifecycle')) {
      Promise.all([informers.nodes().waitForSync(term.signal), informers.leases().waitForSync(term.signal)]).then(
        () => hooks.onNodeCachesSynced?.(),
        () => undefined,
      );
    }
    let failure: { err: unknown } | undefined;
    try {
      await Promise.all(
        controllers.map(async ({ name, controller }) => {
          try {
            await controller.run(term.signal);
          } catch (err) {
            if (term.signal.aborted) return;
            failure ??= { err };
            this.#deps.log.error({ err, controller: name }, 'controller failed; stopping every controller of the term');
            term.abort(err);
          }
        }),
      );
    } finally {
      term.abort();
      signal.removeEventListener('abort', stop);
      await informing;
    }
    if (failure !== undefined) throw failure.err;
  }

  #build(informers: SharedInformers): Array<{ name: ControllerName; controller: Runnable }> {
    const { client, clock, random, log, identity } = this.#deps;
    const host = identity === undefined ? {} : { identity };
    const on = (name: ControllerName): boolean => this.#deps.enabled.has(name);
    const m = this.#metrics;
    const out: Array<{ name: ControllerName; controller: Runnable }> = [];
    if (on('node-lifecycle')) {
      const controller = new NodeLifecycleController({
        client,
        nodes: informers.nodes(),
        leases: informers.leases(),
        clock,
        random,
        log: log.child({ controller: 'node-lifecycle' }),
        config: this.#deps.nodeLifecycle,
        ...(m.nodeLifecycle ? { metrics: m.nodeLifecycle } : {}),
        ...host,
        dryRun: this.#deps.dryRun === true,
      });
      out.push({ name: 'node-lifecycle', controller });
    }
    if (on('scheduler')) {
      const controller = new Scheduler({
        client,
        nodes: informers.nodes(),
        pods: informers.pods(),
        clock,
        log: log.child({ controller: 'scheduler' }),
        ...(m.scheduler ? { metrics: m.scheduler } : {}),
        ...host,
      });
      out.push({ name: 'scheduler', controller });
    }
    if (on('deployment')) {
      const controller = new DeploymentController({
        client,
        deployments: informers.deployments(),
        pods: informers.pods(),
        nodes: informers.nodes(),
        clock,
        random,
        log: log.child({ controller: 'deployment' }),
        ...(m.deployment ? { metrics: m.deployment } : {}),
        ...host,
      });
      out.push({ name: 'deployment', controller });
    }
    if (on('taint-eviction')) {
      const controller = new TaintEvictionController({
        client,
        nodes: informers.nodes(),
        pods: informers.pods(),
        clock,
        log: log.child({ controller: 'taint-eviction' }),
        ...(m.taintEviction ? { metrics: m.taintEviction } : {}),
        ...(this.#deps.taintEviction ? { config: this.#deps.taintEviction } : {}),
        ...host,
      });
      out.push({ name: 'taint-eviction', controller });
    }
    if (on('pod-gc')) {
      const controller = new PodGcController({
        client,
        nodes: informers.nodes(),
        pods: informers.pods(),
        clock,
        log: log.child({ controller: 'pod-gc' }),
        ...(m.podGc ? { metrics: m.podGc } : {}),
      });
      out.push({ name: 'pod-gc', controller });
    }
    return out;
  }
}
