import type { ApiClient } from '../client/api-client.js';
import { formatTime, type Clock } from '../core/clock.js';
import { isReason } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Node, NodeStatus } from '../core/node.js';
import { DEFAULT_MAX_PODS } from '../core/pod.js';
import type { Random } from '../core/random.js';
import { errorMessage, FailureLog, retryAfterMs } from './backoff.js';
import { withDeadline } from './deadline.js';
import type { HostInfo, HostProbe } from './host-probe.js';
import { nodeResources } from './node-resources.js';
import {
  computeConditions,
  desiredStatus,
  nextReportDelay,
  shouldPost,
  statusChanged,
  type HostReadings,
  type ReportState,
  type Thresholds,
} from './node-status.js';

/** kubelet nodeStatusUpdateRetry. */
export const STATUS_UPDATE_RETRIES = 5;
/** The kubelet runs syncNodeStatus with wait.JitterUntil(…, 0.04, sliding). */
export const STATUS_JITTER_FACTOR = 0.04;

export interface StatusReporterConfig extends Thresholds {
  nodeName: string;
  nodeStatusUpdateFrequencyMs: number;
  nodeStatusReportFrequencyMs: number;
  diskPath: string;
  version: string;
  /** --max-pods: status.capacity.pods (default 110). */
  maxPods?: number;
  /** --cpu-capacity: status.capacity.cpu (default: the host's CPUs). */
  cpuCapacity?: number;
}

export interface StatusReporterDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  log: Logger;
  config: StatusReporterConfig;
  host: HostProbe;
  /** Registers the node again when it was deleted while the agent runs (a deleted node also loses its lease). */
  recreateNode?: (signal: AbortSignal) => Promise<Node>;
  /** status.podCount, when the agent runs pods; absent, the reporter leaves the field as stored. */
  podCount?: () => number;
}

export interface StatusStats {
  statusPosts: number;
  statusPostFailures: number;
}

/**
 * The kubelet's node status loop (pkg/kubelet/kubelet_node_status.go): compute every update period, write only
 * when something changed or the report period has passed. It compares against the last status it wrote or
 * read instead of GETting the node every tick; a status write carries that resourceVersion and a 409 re-reads.
 */
export class StatusReporter {
  readonly #deps: StatusReporterDeps;
  readonly #failures: FailureLog;
  #node: Node | undefined;
  #report: ReportState = { lastReportAt: undefined, delayAfterChangeMs: 0 };
  #forced = false;
  /** Aborted by `heal` to end the loop's sleep early. */
  #wake: AbortController | undefined;
  #notBefore = 0;
  #diskFailing = false;
  #stats: StatusStats = { statusPosts: 0, statusPostFailures: 0 };

  constructor(deps: StatusReporterDeps) {
    this.#deps = deps;
    this.#failures = new FailureLog(deps.log, deps.clock, `posting status of node ${deps.config.nodeName}`);
  }

  adopt(node: Node): void {
    this.#node = node;
  }

  /**
   * Post at the next tick even if unchanged. Called when lease renewals recover from an outage: the controller
   * may have marked the node Unknown meanwhile, and only the agent's next status post makes it Ready again.
   */
  forcePost(): void {
    this.#forced = true;
  }

  /**
   * The server stores Ready=`serverReady` for this node (a lease renewal's answer said so): when that is not what
   * this agent last posted, post now instead of at the next tick, so a wrong verdict (a stale controller, a mark by
   * hand) heals within a status period (docs/node-lifecycle.md#agent-heal). Returns true when a post was asked for.
   */
  heal(serverReady: string): boolean {
    const posted = this.#node?.status.conditions?.find((c) => c.type === 'Ready')?.status;
    if (posted === serverReady) return false;
    this.#forced = true;
    this.#wake?.abort();
    return true;
  }

  stats(): StatusStats {
    return { ...this.#stats };
  }

  async run(signal: AbortSignal): Promise<void> {
    try {
      for (;;) {
        await this.tick(signal);
        const period =
          this.#deps.config.nodeStatusUpdateFrequencyMs * (1 + STATUS_JITTER_FACTOR * this.#deps.random.next());
        await this.#sleep(period, signal);
      }
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
  }

  /** Sleeps until the next tick, or until `heal` wakes the loop early. */
  async #sleep(ms: number, signal: AbortSignal): Promise<void> {
    const wake = new AbortController();
    const stop = (): void => wake.abort();
    signal.addEventListener('abort', stop, { once: true });
    this.#wake = wake;
    try {
      await this.#deps.clock.sleep(ms, wake.signal);
    } catch (err) {
      if (signal.aborted) throw err;
    } finally {
      signal.removeEventListener('abort', stop);
      this.#wake = undefined;
    }
  }

  /** One syncNodeStatus: returns true when a status was written. */
  async tick(signal: AbortSignal): Promise<boolean> {
    const node = this.#node;
    if (node === undefined) throw new Error('StatusReporter.tick before adopt(node): register the node first');
    const mono = this.#deps.clock.monotonic();
    if (mono < this.#notBefore) return false;
    const readings = await this.#read(signal);
    const info = this.#deps.host.info();
    const changed = statusChanged(node.status, this.#desired(node, readings, info));
    const first = this.#report.lastReportAt === undefined;
    if (!this.#forced && !shouldPost(this.#report, changed, mono, this.#deps.config.nodeStatusReportFrequencyMs))
      return false;
    if (!(await this.#post(node, readings, info, signal))) return false;
    this.#forced = false;
    this.#report = {
      lastReportAt: this.#deps.clock.monotonic(),
      delayAfterChangeMs: nextReportDelay(
        changed || first,
        this.#deps.config.nodeStatusReportFrequencyMs,
        this.#deps.random.next(),
      ),
    };
    return true;
  }

  #desired(node: Node, readings: HostReadings, info: HostInfo): NodeStatus {
    const now = formatTime(this.#deps.clock.now());
    const { config, host, podCount } = this.#deps;
    const conditions = computeConditions(node.status.conditions, readings, config, now);
    const resources = nodeResources(
      config.cpuCapacity ?? host.cpus(),
      readings.memory.totalBytes,
      config.maxPods ?? DEFAULT_MAX_PODS,
    );
    return desiredStatus(node.status, conditions, info, config.version, {
      resources,
      ...(podCount === undefined ? {} : { podCount: podCount() }),
    });
  }

  /** Up to 5 tries: a 409 re-reads the node and recomputes (kubelet tryUpdateNodeStatus); other errors wait for the next tick. */
  async #post(base: Node, readings: HostReadings, info: HostInfo, signal: AbortSignal): Promise<boolean> {
    let node = base;
    for (let attempt = 0; attempt < STATUS_UPDATE_RETRIES; attempt++) {
      try {
        const status = this.#desired(node, readings, info);
        this.#node = await this.#call(signal, 'node status update', (s) =>
          this.#deps.client.nodes.updateStatus({ ...node, status }, { signal: s }),
        );
        this.#stats.statusPosts++;
        this.#failures.success();
        return true;
      } catch (err) {
        if (signal.aborted) throw err;
        try {
          if (isReason(err, 'Conflict'))
            node = await this.#call(signal, 'node get', (s) =>
              this.#deps.client.nodes.get(this.#deps.config.nodeName, { signal: s }),
            );
          else if (isReason(err, 'NotFound') && this.#deps.recreateNode) node = await this.#recreate(signal);
          else throw err;
          this.#node = node;
        } catch (inner) {
          if (signal.aborted) throw inner;
          this.#failed(inner);
          return false;
        }
      }
    }
    return false;
  }

  async #recreate(signal: AbortSignal): Promise<Node> {
    this.#deps.log.warn(
      { node: this.#deps.config.nodeName },
      `node ${this.#deps.config.nodeName} was deleted while its agent runs; registering it again`,
    );
    return (this.#deps.recreateNode as (signal: AbortSignal) => Promise<Node>)(signal);
  }

  async #read(signal: AbortSignal): Promise<HostReadings> {
    const memory = this.#deps.host.memory();
    try {
      const disk = await this.#call(signal, `statfs ${this.#deps.config.diskPath}`, () =>
        this.#deps.host.disk(this.#deps.config.diskPath),
      );
      this.#diskFailing = false;
      return { memory, disk };
    } catch (err) {
      if (signal.aborted) throw err;
      if (!this.#diskFailing) {
        this.#deps.log.warn(
          { path: this.#deps.config.diskPath, err: errorMessage(err) },
          `cannot measure disk ${this.#deps.config.diskPath}: ${errorMessage(err)}; reporting DiskPressure Unknown until it can`,
        );
      }
      this.#diskFailing = true;
      return { memory, disk: undefined };
    }
  }

  #call<T>(signal: AbortSignal, what: string, call: (s: AbortSignal) => Promise<T>): Promise<T> {
    // kubelet: the heartbeat client's timeout is one status update period.
    return withDeadline(this.#deps.clock, signal, this.#deps.config.nodeStatusUpdateFrequencyMs, what, call);
  }

  #failed(err: unknown): void {
    this.#stats.statusPostFailures++;
    this.#failures.failure(err, 'trying again at the next status update');
    const wait = retryAfterMs(err);
    if (wait !== undefined) this.#notBefore = this.#deps.clock.monotonic() + wait;
  }
}
