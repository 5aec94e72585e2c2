import type { Clock } from '../../core/clock.js';
import { WorkQueue } from '../work-queue.js';
import { PodBackoff } from './pod-backoff.js';

/**
 * kube-scheduler's SchedulingQueue over the generic work queue (docs/workloads.md#retries): pods waiting for an
 * attempt (active), pods waiting out their backoff (delayed adds of the work queue), and unschedulable pods parked
 * until a node change could help them. No pod is handed out before its backoff ends, whatever asks for it.
 */
export class SchedulingQueue {
  readonly #clock: Clock;
  readonly #queue: WorkQueue<string>;
  readonly #backoff: PodBackoff;
  readonly #maxUnschedulableMs: number;
  /** Unschedulable pods waiting for a node change, with when they were parked (monotonic ms). */
  readonly #parked = new Map<string, number>();

  constructor(clock: Clock, config: { initialBackoffMs: number; maxBackoffMs: number; maxUnschedulableMs: number }) {
    this.#clock = clock;
    this.#queue = new WorkQueue(clock);
    this.#backoff = new PodBackoff(clock, config.initialBackoffMs, config.maxBackoffMs);
    this.#maxUnschedulableMs = config.maxUnschedulableMs;
  }

  get counts(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.#queue.length, backoff: this.#queue.delayed, unschedulable: this.#parked.size };
  }

  isParked(key: string): boolean {
    return this.#parked.has(key);
  }

  /** A pending pod to try: queued after what is left of its backoff, unless it is parked. */
  add(key: string): void {
    if (!this.#parked.has(key)) this.#queue.addAfter(key, this.#backoff.remaining(key));
  }

  /** The pod itself changed in a way that may let it fit (its tolerations, its nodeSelector). */
  unpark(key: string): void {
    if (this.#parked.delete(key)) this.add(key);
  }

  /** kube-scheduler's MoveAllToActiveOrBackoffQueue: a node changed, so every parked pod may fit now. */
  unparkAll(): void {
    if (this.#parked.size === 0) return;
    const keys = [...this.#parked.keys()];
    this.#parked.clear();
    for (const key of keys) this.add(key);
  }

  /** kube-scheduler's flushUnschedulablePodsLeftover: pods parked for longer than maxUnschedulableMs. */
  flushLeftovers(): void {
    const now = this.#clock.monotonic();
    for (const [key, since] of this.#parked) {
      if (now - since < this.#maxUnschedulableMs) continue;
      this.#parked.delete(key);
      this.add(key);
    }
  }

  /** No node fits: back off and park until a node change. */
  parkUnschedulable(key: string): void {
    this.#backoff.fail(key);
    this.#parked.set(key, this.#clock.monotonic());
  }

  /** The attempt failed for another reason (the binding failed): back off and try again. */
  retryAfterError(key: string): void {
    this.#backoff.fail(key);
    this.add(key);
  }

  /** The pod was bound, is terminating, or is gone: nothing is left to schedule. */
  forget(key: string): void {
    this.#parked.delete(key);
    this.#backoff.clear(key);
  }

  /** Bound successfully: its next attempt, if ever, starts without backoff. */
  clearBackoff(key: string): void {
    this.#backoff.clear(key);
  }

  get(signal: AbortSignal): Promise<string | undefined> {
    return this.#queue.get(signal);
  }

  done(key: string): void {
    this.#queue.done(key);
  }

  shutDown(): void {
    this.#queue.shutDown();
  }
}
