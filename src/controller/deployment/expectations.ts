import type { Clock } from '../../core/clock.js';

/** Kubernetes' ExpectationsTimeout: expectations older than this are considered met (a lost event cannot wedge). */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

interface Expected {
  creations: number;
  deletions: Set<string>;
  at: number;
}

/**
 * Kubernetes' ControllerExpectations: what a sync asked the API for (pods to create, pods to delete) and has not
 * yet seen in the informer. Until the informer shows all of it, the controller does not plan another step for that
 * Deployment, so a slow watch never makes it create the same pods twice or delete one pod too many.
 */
export class Expectations {
  readonly #clock: Clock;
  readonly #items = new Map<string, Expected>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  satisfied(key: string): boolean {
    const e = this.#items.get(key);
    if (e === undefined) return true;
    if (e.creations <= 0 && e.deletions.size === 0) return true;
    return this.#clock.monotonic() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  expect(key: string, creations: number, deletions: readonly string[]): void {
    this.#items.set(key, { creations, deletions: new Set(deletions), at: this.#clock.monotonic() });
  }

  /** A created pod showed up (or a creation failed and will never show up). */
  creationObserved(key: string): void {
    const e = this.#items.get(key);
    if (e !== undefined) e.creations--;
  }

  /** A pod asked to be deleted is terminating or gone (or its deletion failed). */
  deletionObserved(key: string, podKey: string): void {
    this.#items.get(key)?.deletions.delete(podKey);
  }

  delete(key: string): void {
    this.#items.delete(key);
  }
}
