import { backoffCeiling, type BackoffPolicy } from '../../client/backoff.js';
import type { RestartPolicy } from '../../core/pod.js';

/**
 * The kubelet's CrashLoopBackOff: a container that exits is restarted after 10 s, then 20 s, 40 s, … capped at
 * 5 minutes (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-restarts).
 * `--crash-loop-backoff` and `--crash-loop-backoff-max` change both ends (tests use milliseconds).
 */
export const CRASH_LOOP_BACKOFF: BackoffPolicy = { initialMs: 10_000, maxMs: 300_000 };

/** `restartPolicy` applied to an exit: Always restarts any, OnFailure a non-zero one, Never none. */
export function shouldRestart(policy: RestartPolicy | undefined, exitCode: number): boolean {
  switch (policy ?? 'Always') {
    case 'Always':
      return true;
    case 'OnFailure':
      return exitCode !== 0;
    case 'Never':
      return false;
  }
}

/**
 * The delays of one container's restarts. As the kubelet's backoff (client-go flowcontrol.Backoff), the delay
 * doubles with each restart and starts over once the container has run for twice the cap without exiting.
 */
export class RestartBackoff {
  readonly #policy: BackoffPolicy;
  #attempt = 0;

  constructor(policy: BackoffPolicy = CRASH_LOOP_BACKOFF) {
    this.#policy = policy;
  }

  /** The wait before the next start, given how long the run that just ended lasted. */
  next(ranForMs: number): number {
    if (ranForMs >= 2 * this.#policy.maxMs) this.#attempt = 0;
    return backoffCeiling(this.#policy, this.#attempt++);
  }
}
