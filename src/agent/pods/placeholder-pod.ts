import type { Container, ContainerStatus, Pod } from '../../core/pod.js';
import type { ContainerView, PodRuntime } from './pod-runtime.js';

/** A container with a command runs as a process; one without is a placeholder (docs/pods.md#placeholder-pods). */
export function hasCommand(container: Container): boolean {
  return container.command !== undefined && container.command.length > 0;
}

/** Whether any container of the pod needs the process driver. */
export function needsProcesses(pod: Pod): boolean {
  return pod.spec.containers.some(hasCommand);
}

/** A placeholder container: running and ready from `startedAt` on, never restarted. */
export function placeholderView(name: string, startedAt: string): ContainerView {
  const status: ContainerStatus = { name, ready: true, restartCount: 0, state: { running: { startedAt } } };
  return { status, done: false };
}

/**
 * When a placeholder container started: as the API last recorded it (so a restarted agent reports the same
 * status and writes nothing), else `fallback` (the pod's startTime).
 */
export function placeholderStartedAt(previous: readonly ContainerStatus[] | undefined, name: string, fallback: string) {
  return previous?.find((s) => s.name === name)?.state.running?.startedAt ?? fallback;
}

/**
 * A pod whose containers have no command: nothing runs, and the agent reports it Running at once. The fleet
 * simulator's agents hold thousands of these, so it keeps only the container names and start times and builds
 * its views when asked (a status sync, a few times in a pod's life).
 */
export class PlaceholderPod implements PodRuntime {
  readonly #names: readonly string[];
  readonly #startedAt: readonly string[];

  constructor(pod: Pod, startTime: string) {
    this.#names = pod.spec.containers.map((c) => c.name);
    const previous = pod.status.containerStatuses;
    this.#startedAt = this.#names.map((n) => placeholderStartedAt(previous, n, startTime));
  }

  containers(): readonly ContainerView[] {
    return this.#names.map((n, i) => placeholderView(n, this.#startedAt[i] as string));
  }

  async stop(): Promise<void> {}

  async cleanUp(): Promise<void> {}
}
