/**
 * Notices when the controller itself stopped running (SIGSTOP, a VM freeze, a long GC, a laptop lid): if two
 * monitor passes start further apart than one period plus the grace, nothing was watching the nodes in between,
 * so their silence proves nothing. The controller then treats the pass like a restart: a fresh grace for every
 * node (docs/node-lifecycle.md#d14-a-paused-controller-gives-fresh-grace; drill 3 in
 * test/e2e/controller-drills.test.ts). Times are monotonic ms.
 */
export class PauseDetector {
  readonly #allowedGapMs: number;
  #lastPassStart: number | undefined;

  constructor(monitorPeriodMs: number, gracePeriodMs: number) {
    this.#allowedGapMs = monitorPeriodMs + gracePeriodMs;
  }

  /** Call at the start of every pass; returns the gap (ms) when the loop ran late by more than a grace. */
  passStarted(now: number): number | undefined {
    const last = this.#lastPassStart;
    this.#lastPassStart = now;
    if (last === undefined) return undefined;
    const gap = now - last;
    return gap > this.#allowedGapMs ? gap : undefined;
  }
}
