import type { Clock } from '../../core/clock.js';

/**
 * How long a monitor pass may run on the event loop before it lets the rest of the process in
 * (docs/node-lifecycle.md#a-pass-in-slices): at 35,000 nodes a pass's walks took 69–115 ms in one stretch, holding
 * every renewal that arrived meanwhile (BENCHMARKS.md §33).
 */
export const PASS_SLICE_MS = 8;

/** Nodes walked between two looks at the time (a look is cheap, but not free at 100k nodes). */
const LOOK_EVERY = 256;

/** Where a slice's time is read and how the pass steps aside; injected so tests can drive both. */
export interface SliceTiming {
  /** Monotonic ms. */
  now(): number;
  /** Resolves once the event loop has run what was waiting (production: one `setImmediate`). */
  yield(): Promise<void>;
}

/**
 * Slices timed on the controller's clock (a FakeClock stands still within a pass, so unit tests never step aside
 * unless they inject a timing), stepping aside for one turn of the event loop.
 */
export function eventLoopSlices(clock: Pick<Clock, 'monotonic'>): SliceTiming {
  return { now: () => clock.monotonic(), yield: () => new Promise<void>((resolve) => setImmediate(resolve)) };
}

/**
 * Cuts a pass's walks into slices of at most `sliceMs` of work. A walk calls `due(i)` for its i-th node and, when it
 * answers true, awaits `pause()`. Only walks over the pass's own snapshot may be sliced: the caches move while the
 * pass steps aside. A budget of 0 (or less) never steps aside.
 */
export class PassSlicer {
  readonly #timing: SliceTiming;
  readonly #sliceMs: number;
  #sliceStart = 0;
  #pauses = 0;
  #resumed = false;

  constructor(timing: SliceTiming, sliceMs: number = PASS_SLICE_MS) {
    this.#timing = timing;
    this.#sliceMs = sliceMs;
  }

  /** Starts the first slice (at the start of the pass's synchronous work). */
  begin(): void {
    this.#sliceStart = this.#timing.now();
    this.#resumed = false;
  }

  /** Times the pass stepped aside since it was built. */
  get pauses(): number {
    return this.#pauses;
  }

  /**
   * Whether the walk should step aside before its i-th node. Never at the first look after a pause: the walk resumes
   * at the index it stopped at, and must get past it whatever the clock says.
   */
  due(i: number): boolean {
    if (i % LOOK_EVERY !== LOOK_EVERY - 1 || this.#sliceMs <= 0) return false;
    if (this.#resumed) {
      this.#resumed = false;
      return false;
    }
    return this.#timing.now() - this.#sliceStart >= this.#sliceMs;
  }

  async pause(): Promise<void> {
    this.#pauses++;
    await this.#timing.yield();
    this.#sliceStart = this.#timing.now();
    this.#resumed = true;
  }
}

/**
 * Walks indexes 0 to n-1 with `step`, a synchronous loop that starts at `from` and returns the index it stopped at:
 * n when done, or the first index at which `slicer.due` said the slice is over. Between two calls the pass steps
 * aside. The loop lives in `step`, a plain function, so a walk that never steps aside runs the same loop as it
 * would without slices, and the async part is one await per slice, not one per node.
 */
export async function walkInSlices(n: number, slicer: PassSlicer, step: (from: number) => number): Promise<void> {
  let i = step(0);
  while (i < n) {
    await slicer.pause();
    i = step(i);
  }
}
