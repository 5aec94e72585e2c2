import type { ApiClient } from '../../client/api-client.js';
import { formatTime, type Clock } from '../../core/clock.js';
import { isReason } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { objectKey } from '../../core/object-key.js';
import { DEFAULT_TERMINATION_GRACE_SECONDS, isTerminated, type Pod, type PodStatus } from '../../core/pod.js';
import { errorMessage, type FailureLog } from '../backoff.js';
import { podPhase, podStatusEqual, refusedPodStatus, runningPodStatus } from './pod-status.js';
import type { PodRuntime } from './pod-runtime.js';
import type { Syncable } from './pod-sync-queue.js';

/** Why the agent will not run a pod: the reason and message of its Failed status. */
export interface Refusal {
  reason: string;
  message: string;
}

export interface PodWorkerDeps {
  client: ApiClient;
  clock: Clock;
  log: Logger;
  /** The node's address, reported as the pod's hostIP. */
  hostIP: () => string | undefined;
  /** The runtime that runs `pod` here, or why none will. `onChange` is called when what runs changes. */
  runtimeFor: (pod: Pod, startTime: string, onChange: () => void) => PodRuntime | Refusal;
  /** Shared by every pod of the node: an outage is logged once, not once per pod. */
  statusFailures: FailureLog;
  /** The pod manager's lifetime: every API call ends with it. */
  signal: AbortSignal;
  /** Queues the worker's flush (pod-sync-queue.ts): a status write or a deletion is due. */
  enqueue: (worker: PodWorker) => void;
}

/** kubelet: a status update or a deletion that keeps conflicting is tried again at the next change. */
const WRITE_ATTEMPTS = 5;

/** The grace a pod gets when stopped: the one its deletion set, else its terminationGracePeriodSeconds, else 30 s. */
export function gracePeriodMs(pod: Pod): number {
  const seconds =
    pod.metadata.deletionGracePeriodSeconds ??
    pod.spec.terminationGracePeriodSeconds ??
    DEFAULT_TERMINATION_GRACE_SECONDS;
  return seconds * 1000;
}

/** Answers that writing the same status again cannot fix. */
function isRefusal(err: unknown): boolean {
  return isReason(err, 'Invalid') || isReason(err, 'Forbidden') || isReason(err, 'BadRequest');
}

/**
 * Store revisions are integers on both backends. An object older than the one in hand (a watch event that trails
 * the answer to our own write) is skipped so it cannot undo what the worker already knows.
 */
export function isOlder(candidate: string, held: string): boolean {
  if (!/^\d+$/.test(candidate) || !/^\d+$/.test(held)) return false;
  return BigInt(candidate) < BigInt(held);
}

/**
 * One pod bound to this node (the kubelet's pod worker and status manager, for one pod): starts it, writes its
 * status when, and only when, what runs differs from what the API holds (a 409 re-reads and tries again), and
 * on deletionTimestamp stops it (SIGTERM, SIGKILL after the grace period) and removes the object with grace 0.
 */
export class PodWorker implements Syncable {
  readonly #deps: PodWorkerDeps;
  #pod: Pod;
  #runtime: PodRuntime | undefined;
  #refusal: Refusal | undefined;
  #startTime = '';
  #terminating = false;
  /** Nothing runs any more for a terminating pod: its object may be removed. */
  #stopped = false;
  /** The object is gone from the API (removed by us or by anyone). */
  #gone = false;
  #scheduled = false;
  #flushing = false;
  #dirty = false;

  constructor(deps: PodWorkerDeps, pod: Pod) {
    this.#deps = deps;
    this.#pod = pod;
  }

  get uid(): string {
    return this.#pod.metadata.uid;
  }

  /** Takes the pod on: nothing runs for a pod already being deleted or already finished. */
  start(): void {
    const pod = this.#pod;
    if (pod.metadata.deletionTimestamp !== undefined) {
      this.#terminating = true;
      this.#stopped = true;
      this.#changed();
      return;
    }
    if (isTerminated(pod)) return;
    this.#startTime = pod.status.startTime ?? formatTime(this.#deps.clock.now());
    const runtime = this.#deps.runtimeFor(pod, this.#startTime, () => this.#changed());
    if ('reason' in runtime) this.#refusal = runtime;
    else this.#runtime = runtime;
    this.#changed();
  }

  /** A newer copy of the pod from the API (same uid). */
  update(pod: Pod): void {
    const held = this.#pod.metadata.resourceVersion;
    // The same version is the echo of our own write (or a relist of an unchanged pod): nothing to do.
    if (pod.metadata.resourceVersion === held || isOlder(pod.metadata.resourceVersion, held)) return;
    this.#pod = pod;
    if (pod.metadata.deletionTimestamp === undefined) {
      this.#changed();
      return;
    }
    if (!this.#terminating) {
      this.#terminating = true;
      const stopped = this.#runtime?.stop(gracePeriodMs(pod)) ?? Promise.resolve();
      void stopped.then(() => {
        this.#stopped = true;
        this.#changed();
      });
    } else {
      // A second DELETE may shorten the grace period: the runtime brings its SIGKILL forward.
      void this.#runtime?.stop(gracePeriodMs(pod));
    }
  }

  /** The pod is gone from the API (or replaced by a new one of the same name): stop what runs, drop its log. */
  async removed(): Promise<void> {
    this.#gone = true;
    const runtime = this.#runtime;
    if (runtime === undefined) return;
    await runtime.stop(gracePeriodMs(this.#pod));
    await runtime.cleanUp();
  }

  /** The agent stops: processes stop with it (docs/pods.md#agent-restarts); the API is not told. */
  async shutdown(): Promise<void> {
    await this.#runtime?.stop(gracePeriodMs(this.#pod));
  }

  /** Whether the pod holds a place on the node: bound and not Succeeded or Failed (Node status.podCount). */
  occupiesNode(): boolean {
    if (this.#refusal !== undefined) return false;
    if (this.#runtime === undefined) return !isTerminated(this.#pod);
    const phase = podPhase(this.#runtime.containers());
    return phase !== 'Succeeded' && phase !== 'Failed';
  }

  #desired(): PodStatus | undefined {
    const pod = this.#pod;
    const now = formatTime(this.#deps.clock.now());
    const hostIP = this.#deps.hostIP();
    if (this.#refusal !== undefined) {
      const { reason, message } = this.#refusal;
      const names = pod.spec.containers.map((c) => c.name);
      return refusedPodStatus(pod.status, names, hostIP, now, reason, message);
    }
    if (this.#runtime === undefined) return undefined;
    const containers = this.#runtime.containers();
    return runningPodStatus({ previous: pod.status, containers, hostIP, startTime: this.#startTime, now });
  }

  /** Coalesces the changes of one turn of the event loop into one queued flush (and at most one write). */
  #changed(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#deps.enqueue(this);
    });
  }

  /** Does what is due: remove the object of a stopped terminating pod, else write the status if it changed. */
  async flush(): Promise<'done' | 'retry'> {
    if (this.#flushing) {
      this.#dirty = true;
      return 'done';
    }
    this.#flushing = true;
    try {
      let result: 'done' | 'retry';
      do {
        this.#dirty = false;
        result = await this.#flushOnce();
      } while (this.#dirty && result === 'done');
      return result;
    } finally {
      this.#flushing = false;
    }
  }

  async #flushOnce(): Promise<'done' | 'retry'> {
    if (this.#gone || this.#deps.signal.aborted) return 'done';
    if (this.#terminating) return this.#stopped ? this.#removeObject() : 'done';
    return this.#writeStatus();
  }

  async #writeStatus(): Promise<'done' | 'retry'> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const status = this.#desired();
      if (status === undefined || podStatusEqual(status, this.#pod.status)) return 'done';
      try {
        const pod = this.#pod;
        this.#adopt(await this.#call((s) => this.#client().updateStatus({ ...pod, status }, s)));
        this.#deps.statusFailures.success();
        return 'done';
      } catch (err) {
        if (this.#deps.signal.aborted || isReason(err, 'NotFound')) return 'done';
        if (isRefusal(err)) {
          this.#deps.log.warn(
            { pod: this.#key(), err: errorMessage(err) },
            `the API refused the status of pod ${this.#key()}: ${errorMessage(err)}; writing it again at its next change`,
          );
          return 'done';
        }
        const reread = isReason(err, 'Conflict') ? await this.#reread() : this.#failed(err);
        if (reread !== 'same') return reread === 'other' ? 'done' : 'retry';
      }
    }
    return 'retry';
  }

  /** DELETE with grace 0 once nothing runs, with the last resourceVersion seen as precondition. */
  async #removeObject(): Promise<'done' | 'retry'> {
    const name = this.#pod.metadata.name;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      try {
        const resourceVersion = this.#pod.metadata.resourceVersion;
        await this.#call((s) => this.#client().delete(name, { ...s, gracePeriodSeconds: 0, resourceVersion }));
        this.#gone = true;
        this.#deps.statusFailures.success();
        this.#deps.log.info({ pod: this.#key() }, `pod ${this.#key()} stopped; removed it`);
        return 'done';
      } catch (err) {
        if (this.#deps.signal.aborted || isReason(err, 'NotFound')) return 'done';
        const reread = isReason(err, 'Conflict') ? await this.#reread() : this.#failed(err);
        if (reread !== 'same') return reread === 'other' ? 'done' : 'retry';
      }
    }
    return 'retry';
  }

  /** GET after a 409: 'same' (adopted), 'other' (gone, or another pod of that name now), 'failed' (try later). */
  async #reread(): Promise<'same' | 'other' | 'failed'> {
    try {
      const fresh = await this.#call((s) => this.#client().get(this.#pod.metadata.name, s));
      if (fresh.metadata.uid !== this.#pod.metadata.uid) return 'other';
      this.#adopt(fresh);
      return 'same';
    } catch (err) {
      if (this.#deps.signal.aborted || isReason(err, 'NotFound')) return 'other';
      return this.#failed(err);
    }
  }

  #adopt(pod: Pod): void {
    if (!isOlder(pod.metadata.resourceVersion, this.#pod.metadata.resourceVersion)) this.#pod = pod;
  }

  #client() {
    return this.#deps.client.pods(this.#pod.metadata.namespace);
  }

  /**
   * One API call under the manager's signal. No deadline of our own: the HTTP client's request timeout (30 s) bounds
   * a hung call, and a deadline per call (an AbortController and a timer each) costs more than the call itself when
   * a fleet agent acknowledges thousands of placeholder pods.
   */
  #call<T>(call: (options: { signal: AbortSignal }) => Promise<T>): Promise<T> {
    return call({ signal: this.#deps.signal });
  }

  #failed(err: unknown): 'failed' {
    this.#deps.statusFailures.failure(err, 'retrying with backoff up to 30s; logged again on recovery');
    return 'failed';
  }

  #key(): string {
    return objectKey(this.#pod.metadata);
  }
}
