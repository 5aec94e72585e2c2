import type { ApiClient } from '../client/api-client.js';
import type { BackoffPolicy } from '../client/backoff.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { labelKeyProblem, labelValueProblem, nameProblem } from '../core/names.js';
import type { Random } from '../core/random.js';
import { systemHostProbe, type HostProbe } from './host-probe.js';
import { LeaseRenewer } from './lease-renewer.js';
import { nodePodWatch } from './pods/node-pod-watch.js';
import { PodManager } from './pods/pod-manager.js';
import type { PodSource } from './pods/pod-source.js';
import { loadProcessDriver } from './pods/process-driver.js';
import type { ProcessLauncher } from './pods/process-launcher.js';
import { ensureNode, register } from './registration.js';
import { StatusReporter } from './status-reporter.js';

// The error is defined next to the check that throws it; the agent's API exposes it here too.
export { DuplicateHolderError } from './registration.js';

export interface AgentConfig {
  nodeName: string;
  zone?: string;
  region?: string;
  labels: Record<string, string>;
  /** --lease-duration, whole seconds (default 40). */
  leaseDurationSeconds: number;
  /** --node-status-update-frequency (default 10 s). */
  nodeStatusUpdateFrequencyMs: number;
  /** --node-status-report-frequency (default 5 m). */
  nodeStatusReportFrequencyMs: number;
  /** Fraction of memory available below which MemoryPressure=True, e.g. 0.05. */
  memoryPressureThreshold: number;
  /** Fraction of disk free below which DiskPressure=True, e.g. 0.10. */
  diskPressureThreshold: number;
  /** Default "/". */
  diskPath: string;
  version: string;
  /** --max-pods: the pods the node takes, status.capacity.pods (default 110). */
  maxPods?: number;
  /** --cpu-capacity: status.capacity.cpu (default: the host's available parallelism). */
  cpuCapacity?: number;
  /** How the agent runs the pods bound to its node; absent, it does not watch pods at all. */
  pods?: AgentPodsConfig;
}

/** docs/pods.md */
export interface AgentPodsConfig {
  /** --allow-process-pods: run containers that have a command as child processes. */
  allowProcessPods: boolean;
  /** --pod-log-dir: pod log files and the process table; needed with allowProcessPods. */
  podLogDir?: string;
  /** --crash-loop-backoff and --crash-loop-backoff-max. */
  crashLoopBackoff: BackoffPolicy;
}

export interface AgentDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  log: Logger;
  config: AgentConfig;
  /** Injectable: hostname, os, arch, addresses, memory/disk readings. Defaults to the real host. */
  host?: HostProbe;
  /** Where the node's pods come from; default: the agent's own list and watch (pods/node-pod-watch.ts). */
  podSource?: PodSource;
  /** Starts container processes; default: the real driver, loaded only when needed (pods/process-driver.ts). */
  processLauncher?: ProcessLauncher;
}

export interface AgentStats {
  renewals: number;
  renewalFailures: number;
  lastRenewalLatencyMs?: number;
  statusPosts: number;
}

/** The node name from the host name: lowercased and validated, since the API refuses anything else. */
export function defaultNodeName(hostname: string): string {
  const name = hostname.trim().toLowerCase().replace(/\.$/, '');
  const problem = nameProblem(name);
  if (problem !== undefined) {
    throw new Error(
      `the host name "${hostname}" is not a valid node name (${problem}); pass --node-name with a valid name`,
    );
  }
  return name;
}

/** Refuses a configuration the API would reject on every retry, before the agent starts retrying forever. */
export function validateAgentConfig(config: AgentConfig): void {
  const problems: string[] = [];
  const np = nameProblem(config.nodeName);
  if (np !== undefined) problems.push(`--node-name "${config.nodeName}": ${np}`);
  for (const [k, v] of Object.entries(config.labels)) {
    const kp = labelKeyProblem(k) ?? labelValueProblem(v);
    if (kp !== undefined) problems.push(`--labels ${k}=${v}: ${kp}`);
  }
  for (const [flag, v] of [
    ['--zone', config.zone],
    ['--region', config.region],
  ] as const) {
    const vp = v === undefined ? undefined : labelValueProblem(v);
    if (vp !== undefined) problems.push(`${flag} "${v}": ${vp}`);
  }
  if (!Number.isInteger(config.leaseDurationSeconds) || config.leaseDurationSeconds < 1) {
    problems.push(
      `--lease-duration must be a whole number of seconds, at least 1s (got ${config.leaseDurationSeconds}s)`,
    );
  }
  if (!(config.nodeStatusUpdateFrequencyMs > 0)) problems.push('--node-status-update-frequency must be positive');
  if (!(config.nodeStatusReportFrequencyMs > 0)) problems.push('--node-status-report-frequency must be positive');
  if (config.maxPods !== undefined && !(Number.isInteger(config.maxPods) && config.maxPods >= 0))
    problems.push(`--max-pods must be a whole number (got ${config.maxPods})`);
  if (config.cpuCapacity !== undefined && !(config.cpuCapacity > 0))
    problems.push(`--cpu-capacity must be a positive number (got ${config.cpuCapacity})`);
  const pods = config.pods;
  if (pods?.allowProcessPods && (pods.podLogDir === undefined || pods.podLogDir === ''))
    problems.push("--allow-process-pods needs a --pod-log-dir for the pods' output");
  if (
    pods !== undefined &&
    !(pods.crashLoopBackoff.initialMs > 0 && pods.crashLoopBackoff.maxMs >= pods.crashLoopBackoff.initialMs)
  )
    problems.push('--crash-loop-backoff must be positive and at most --crash-loop-backoff-max');
  if (problems.length > 0) throw new Error(`invalid agent configuration: ${problems.join('; ')}`);
}

/**
 * `shepherd --mode agent`: registers the node and its lease, then renews the lease (the liveness signal), reports
 * status and runs the pods bound to the node until stopped. It never gives up on an unreachable API; on shutdown it
 * leaves the Node and the Lease in place, because the controller judges silence (a node that stops renewing goes
 * Unknown), and stops its process pods, which start again with the agent (docs/pods.md#agent-restarts).
 */
export class Agent {
  readonly #deps: AgentDeps;
  readonly #host: HostProbe;
  readonly #renewer: LeaseRenewer;
  readonly #reporter: StatusReporter;
  #pods: PodManager | undefined;

  constructor(deps: AgentDeps) {
    validateAgentConfig(deps.config);
    this.#deps = { ...deps, log: deps.log.child({ component: 'agent', node: deps.config.nodeName }) };
    this.#host = deps.host ?? systemHostProbe();
    const { client, clock, random, log, config } = this.#deps;
    this.#reporter = new StatusReporter({
      client,
      clock,
      random,
      log,
      config,
      host: this.#host,
      recreateNode: (signal) => ensureNode(this.#registrationDeps(), signal),
      ...(config.pods === undefined ? {} : { podCount: () => this.#pods?.podCount() ?? 0 }),
    });
    this.#renewer = new LeaseRenewer({
      client,
      clock,
      random,
      log,
      config,
      onRecovered: () => this.#reporter.forcePost(),
      onNodeNotReady: (status) => this.#reporter.heal(status),
    });
  }

  /** Registers (node + lease), then runs the renewal and status loops until signal aborts; never gives up. */
  async run(signal: AbortSignal): Promise<void> {
    // One failed loop (a bug, never an API error) stops the other, so run() rejects instead of limping on.
    if (signal.aborted) return;
    const loops = new AbortController();
    const stop = (): void => loops.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    const stopOthersOnFailure = (err: unknown): never => {
      loops.abort(err);
      throw err;
    };
    try {
      // Before registering: process groups an earlier agent left running are killed before any pod starts.
      this.#pods = await this.#podManager();
      const { node, lease } = await register(this.#registrationDeps(), loops.signal);
      this.#renewer.adopt(lease);
      this.#reporter.adopt(node);
      this.#deps.log.info(
        { resourceVersion: lease.metadata.resourceVersion },
        `node ${this.#deps.config.nodeName} registered; renewing its lease`,
      );
      await Promise.all([
        this.#renewer.run(loops.signal).catch(stopOthersOnFailure),
        this.#reporter.run(loops.signal).catch(stopOthersOnFailure),
        this.#pods?.run(loops.signal).catch(stopOthersOnFailure),
      ]);
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  stats(): AgentStats {
    return { ...this.#renewer.stats(), statusPosts: this.#reporter.stats().statusPosts };
  }

  async #podManager(): Promise<PodManager | undefined> {
    const { client, clock, random, log, config } = this.#deps;
    const pods = config.pods;
    if (pods === undefined) return undefined;
    const launcher = this.#deps.processLauncher ?? (await loadProcessDriver(pods, log));
    const host = this.#host;
    return new PodManager({
      client,
      clock,
      log,
      config: {
        nodeName: config.nodeName,
        allowProcessPods: pods.allowProcessPods,
        crashLoopBackoff: pods.crashLoopBackoff,
      },
      source: this.#deps.podSource ?? nodePodWatch({ client, clock, random, log, nodeName: config.nodeName }),
      hostIP: () => hostIP(host),
      ...(launcher === undefined ? {} : { launcher }),
    });
  }

  #registrationDeps(): Parameters<typeof register>[0] {
    const { client, clock, log, config } = this.#deps;
    return { client, clock, log, config, host: this.#host };
  }
}

/** The address pods report as hostIP: the node's InternalIP, else its first address. */
function hostIP(host: HostProbe): string | undefined {
  const addresses = host.info().addresses;
  return (addresses.find((a) => a.type === 'InternalIP') ?? addresses[0])?.address;
}
