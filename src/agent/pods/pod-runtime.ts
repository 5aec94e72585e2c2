import type { ContainerStatus } from '../../core/pod.js';

/** One container as the agent sees it: the status it reports, and whether it is finished for good. */
export interface ContainerView {
  status: ContainerStatus;
  /** Terminated and will not run again (its restart policy says so, or the pod is being stopped). */
  done: boolean;
}

/**
 * What runs a pod on this node: the placeholder runtime (containers without a command, reported running) or the
 * process runtime (each container a child process of the agent). docs/pods.md describes both.
 */
export interface PodRuntime {
  /** The containers' current views, in spec order. */
  containers(): readonly ContainerView[];
  /**
   * Stops every container: SIGTERM now, SIGKILL once `graceMs` has passed since the first call (a later call with
   * a shorter grace brings the SIGKILL forward, as a second DELETE shortens a pod's grace). Resolves when nothing
   * runs any more.
   */
  stop(graceMs: number): Promise<void>;
  /** Once the pod is gone from the API and stopped: deletes what the runtime kept for it (its log file). */
  cleanUp(): Promise<void>;
}
