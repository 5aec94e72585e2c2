import type { BackoffPolicy } from '../../client/backoff.js';
import type { Clock } from '../../core/clock.js';
import { objectKey } from '../../core/object-key.js';
import type { Pod } from '../../core/pod.js';
import { hasCommand, placeholderStartedAt, placeholderView } from './placeholder-pod.js';
import { containerEnv } from './pod-env.js';
import type { ContainerView, PodRuntime } from './pod-runtime.js';
import { ProcessContainer } from './process-container.js';
import type { ProcessLauncher } from './process-launcher.js';

export interface ProcessPodDeps {
  launcher: ProcessLauncher;
  clock: Clock;
  backoff: BackoffPolicy;
  nodeName: string;
  onChange: () => void;
}

/**
 * A pod whose containers have a command, each run as a child process of the agent in its own process group (the
 * way Nomad's raw_exec driver runs a task), output appended to the pod's log file. A container without a command
 * in such a pod is a placeholder, as in a placeholder pod.
 */
export class ProcessPod implements PodRuntime {
  readonly #deps: ProcessPodDeps;
  readonly #containers: Array<ProcessContainer | ContainerView>;
  readonly #logPath: string;
  #stopBegan: number | undefined;
  #killAt: number | undefined;
  #killTimer: AbortController | undefined;
  #stopped: Promise<void> | undefined;
  #allExited = false;

  constructor(deps: ProcessPodDeps, pod: Pod, startTime: string) {
    this.#deps = deps;
    const key = objectKey(pod.metadata);
    const logPath = deps.launcher.logPath(pod.metadata);
    this.#logPath = logPath;
    const previous = pod.status.containerStatuses;
    const restartPolicy = pod.spec.restartPolicy;
    this.#containers = pod.spec.containers.map((c) => {
      if (!hasCommand(c)) return placeholderView(c.name, placeholderStartedAt(previous, c.name, startTime));
      const spec = {
        pod: key,
        container: c.name,
        argv: [...(c.command ?? []), ...(c.args ?? [])],
        env: containerEnv(pod, c, deps.nodeName),
        logPath,
      };
      return new ProcessContainer({ ...deps }, spec, restartPolicy);
    });
    // Started once every container exists, so the first onChange sees them all.
    this.#containers.forEach((c) => {
      if (c instanceof ProcessContainer) c.begin(previous?.find((s) => s.name === c.name));
    });
  }

  containers(): readonly ContainerView[] {
    return this.#containers.map((c) => (c instanceof ProcessContainer ? c.view() : c));
  }

  stop(graceMs: number): Promise<void> {
    const now = this.#deps.clock.monotonic();
    this.#stopBegan ??= now;
    const killAt = this.#stopBegan + graceMs;
    if (!this.#allExited && (this.#killAt === undefined || killAt < this.#killAt)) this.#scheduleKill(killAt, now);
    if (this.#stopped === undefined) {
      const processes = this.#processes();
      this.#stopped = Promise.all(processes.map((c) => c.terminate())).then(() => {
        this.#allExited = true;
        this.#killTimer?.abort();
      });
    }
    return this.#stopped;
  }

  cleanUp(): Promise<void> {
    return this.#deps.launcher.removeLog(this.#logPath);
  }

  #processes(): ProcessContainer[] {
    return this.#containers.filter((c): c is ProcessContainer => c instanceof ProcessContainer);
  }

  #scheduleKill(killAt: number, now: number): void {
    this.#killAt = killAt;
    this.#killTimer?.abort();
    const timer = new AbortController();
    this.#killTimer = timer;
    this.#deps.clock.sleep(killAt - now, timer.signal).then(
      () => this.#processes().forEach((c) => c.kill()),
      () => {},
    );
  }
}
