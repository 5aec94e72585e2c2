import type { BackoffPolicy } from '../../client/backoff.js';
import { formatTime, type Clock } from '../../core/clock.js';
import { formatDuration } from '../../core/duration.js';
import type { ContainerState, ContainerStatus, RestartPolicy } from '../../core/pod.js';
import type { ContainerView } from './pod-runtime.js';
import type { ProcessExit, ProcessHandle, ProcessLauncher, ProcessSpec } from './process-launcher.js';
import { RestartBackoff, shouldRestart } from './restart-policy.js';

/** The exit code Kubernetes reports for a container it lost track of (128 + SIGKILL). */
export const LOST_EXIT_CODE = 137;

export interface ProcessContainerDeps {
  launcher: ProcessLauncher;
  clock: Clock;
  backoff: BackoffPolicy;
  /** Called after every change of the container's status. */
  onChange: () => void;
}

type Terminated = NonNullable<ContainerState['terminated']>;

/**
 * One container run as a child process: started at once, restarted by its pod's restartPolicy with the
 * CrashLoopBackOff delays, its exits recorded in its status (state, lastState, restartCount, exit codes) the
 * way the kubelet reports a container.
 */
export class ProcessContainer {
  readonly name: string;
  readonly #deps: ProcessContainerDeps;
  readonly #spec: Omit<ProcessSpec, 'header'>;
  readonly #policy: RestartPolicy | undefined;
  readonly #backoff: RestartBackoff;
  #restartCount = 0;
  #state: ContainerState = { waiting: { reason: 'ContainerCreating' } };
  #lastState: ContainerState | undefined;
  #done = false;
  #handle: ProcessHandle | undefined;
  #startedMono = 0;
  #stopping = false;
  /** Aborts the wait before a restart. */
  #restartTimer: AbortController | undefined;
  #settled: Promise<void> = Promise.resolve();

  constructor(deps: ProcessContainerDeps, spec: Omit<ProcessSpec, 'header'>, policy: RestartPolicy | undefined) {
    this.#deps = deps;
    this.#spec = spec;
    this.name = spec.container;
    this.#policy = policy;
    this.#backoff = new RestartBackoff(deps.backoff);
  }

  /**
   * Starts the container, continuing from the status an earlier agent reported (`previous`): a container that had
   * finished for good stays finished; one that was running or waiting to restart when that agent stopped (and its
   * processes with it) has lost that run, which counts as a restart, or as a final exit 137 under
   * restartPolicy Never; one that never ran starts afresh.
   */
  begin(previous: ContainerStatus | undefined): void {
    if (previous === undefined || !hasRun(previous)) {
      this.#launch();
      return;
    }
    this.#restartCount = previous.restartCount;
    const ended = previous.state.terminated;
    if (ended !== undefined && !shouldRestart(this.#policy, ended.exitCode)) {
      this.#finish(ended, previous.lastState);
      return;
    }
    const lost = ended ?? previous.lastState?.terminated ?? this.#lostRun(previous);
    if (previous.state.running !== undefined && !shouldRestart(this.#policy, lost.exitCode)) {
      this.#finish(lost, previous.lastState);
      return;
    }
    this.#lastState = { terminated: lost };
    this.#restartCount++;
    this.#launch();
  }

  view(): ContainerView {
    const status: ContainerStatus = {
      name: this.name,
      ready: this.#state.running !== undefined,
      restartCount: this.#restartCount,
      state: this.#state,
      ...(this.#lastState === undefined ? {} : { lastState: this.#lastState }),
    };
    return { status, done: this.#done };
  }

  /** SIGTERM to the process group; no restart after. Resolves when the process has exited. */
  terminate(): Promise<void> {
    this.#stopping = true;
    this.#restartTimer?.abort();
    if (this.#handle === undefined && !this.#done) this.#finish(this.#lastState?.terminated, undefined);
    this.#handle?.kill('SIGTERM');
    return this.#settled;
  }

  /** SIGKILL to the process group (after the grace period). */
  kill(): void {
    this.#handle?.kill('SIGKILL');
  }

  #launch(): void {
    const now = formatTime(this.#deps.clock.now());
    const attempt = this.#restartCount === 0 ? '' : ` (restart ${this.#restartCount})`;
    const header = `[shepherd] ${now} container ${this.name} of pod ${this.#spec.pod} starting${attempt}: ${JSON.stringify(this.#spec.argv)}`;
    const handle = this.#deps.launcher.start({ ...this.#spec, header });
    this.#handle = handle;
    this.#startedMono = this.#deps.clock.monotonic();
    this.#state = { running: { startedAt: now } };
    this.#settled = handle.exited.then((exit) => this.#exited(handle, exit, now));
    this.#deps.onChange();
  }

  #exited(handle: ProcessHandle, exit: ProcessExit, startedAt: string): void {
    if (this.#handle !== handle) return;
    this.#handle = undefined;
    const terminated: Terminated = {
      exitCode: exit.exitCode,
      ...(exit.signal === undefined ? {} : { signal: exit.signal }),
      reason: exit.startError !== undefined ? 'StartError' : exit.exitCode === 0 ? 'Completed' : 'Error',
      ...(exit.startError === undefined ? {} : { message: exit.startError }),
      startedAt,
      finishedAt: formatTime(this.#deps.clock.now()),
    };
    if (this.#stopping || !shouldRestart(this.#policy, exit.exitCode)) {
      this.#finish(terminated, this.#lastState);
      return;
    }
    const delay = this.#backoff.next(this.#deps.clock.monotonic() - this.#startedMono);
    this.#lastState = { terminated };
    this.#state = {
      waiting: {
        reason: 'CrashLoopBackOff',
        message: `back-off ${formatDuration(delay)} restarting failed container=${this.name} pod=${this.#spec.pod}`,
      },
    };
    this.#deps.onChange();
    this.#restartLater(delay);
  }

  #restartLater(delay: number): void {
    const timer = new AbortController();
    this.#restartTimer = timer;
    this.#deps.clock.sleep(delay, timer.signal).then(
      () => {
        if (this.#stopping) return;
        this.#restartCount++;
        this.#launch();
      },
      () => {},
    );
  }

  #finish(terminated: Terminated | undefined, lastState: ContainerState | undefined): void {
    this.#done = true;
    if (terminated !== undefined) this.#state = { terminated };
    this.#lastState = lastState;
    this.#deps.onChange();
  }

  #lostRun(previous: ContainerStatus): Terminated {
    return {
      exitCode: LOST_EXIT_CODE,
      reason: 'ContainerStatusUnknown',
      message:
        'the process stopped with its agent: process pods stop when their agent stops (docs/pods.md#agent-restarts)',
      ...(previous.state.running?.startedAt === undefined ? {} : { startedAt: previous.state.running.startedAt }),
      finishedAt: formatTime(this.#deps.clock.now()),
    };
  }
}

/** Whether a container status shows a run (running, terminated, or restarted before). */
function hasRun(s: ContainerStatus): boolean {
  return s.state.waiting === undefined || s.lastState !== undefined || s.restartCount > 0;
}
