import type { Taint } from '../../core/node.js';

/** The NoSchedule taint of a flapping node (docs/node-lifecycle.md#flap-damping): no new pods, nothing evicted. */
export const FLAPPING_TAINT_KEY = 'shepherd.io/flapping';
export const FLAPPING_NO_SCHEDULE: Taint = Object.freeze({ key: FLAPPING_TAINT_KEY, effect: 'NoSchedule' });

interface FlapRecord {
  /** When the node came back Ready (monotonic ms), the oldest first, only those within the window. */
  returns: number[];
  /** The last return to Ready; for a taint found without a record (a restart), when it was found. */
  lastReturn: number;
  /** The controller wants the taint on the node. */
  flapping: boolean;
}

/** What to do about one node's flapping taint now. */
export type FlapAction = 'taint' | 'untaint' | undefined;

/**
 * Flap damping (docs/node-lifecycle.md#flap-damping): a node that came back Ready (from False or Unknown) more than
 * `threshold` times within `windowMs` is flapping, and stays so until it has been Ready for `windowMs` without a
 * break. Only nodes that came back Ready at least once in the window, or carry the taint, have a record. Times are
 * the controller's monotonic clock.
 */
export class FlapDamper {
  readonly #threshold: number;
  readonly #windowMs: number;
  readonly #nodes = new Map<string, FlapRecord>();

  constructor(threshold: number, windowMs: number) {
    this.#threshold = threshold;
    this.#windowMs = windowMs;
  }

  get enabled(): boolean {
    return this.#threshold > 0;
  }

  /** The node came back Ready: returns true when this return makes it flapping. */
  returned(name: string, now: number): boolean {
    if (!this.enabled) return false;
    let rec = this.#nodes.get(name);
    if (rec === undefined) this.#nodes.set(name, (rec = { returns: [], lastReturn: now, flapping: false }));
    rec.returns.push(now);
    rec.lastReturn = now;
    this.#prune(rec, now);
    if (rec.flapping || rec.returns.length <= this.#threshold) return false;
    rec.flapping = true;
    return true;
  }

  /** Returns to Ready within the window (for messages and evidence). */
  transitions(name: string, now: number): number {
    const rec = this.#nodes.get(name);
    if (rec === undefined) return 0;
    this.#prune(rec, now);
    return rec.returns.length;
  }

  /**
   * The node carries the flapping taint and the damper has no record of it (the controller restarted, or someone
   * added it): it counts as flapping from now, so it goes after a window of Ready.
   */
  adopt(name: string, now: number): void {
    if (this.#nodes.get(name)?.flapping === true) return;
    // With damping off the taint is only lifted.
    this.#nodes.set(name, { returns: [], lastReturn: now, flapping: this.enabled });
  }

  /**
   * What the node's taint needs: `taint` when flapping without it, `untaint` when it carries it and has been Ready
   * for the window since its last return (or the damper is off), else nothing. Forgets a node with nothing left.
   */
  action(name: string, hasTaint: boolean, ready: boolean, now: number): FlapAction {
    const rec = this.#nodes.get(name);
    if (rec === undefined) return undefined;
    if (rec.flapping && ready && now - rec.lastReturn >= this.#windowMs) rec.flapping = false;
    this.#prune(rec, now);
    if (!rec.flapping && rec.returns.length === 0 && !hasTaint) this.#nodes.delete(name);
    if (rec.flapping) return hasTaint ? undefined : 'taint';
    return hasTaint ? 'untaint' : undefined;
  }

  /** True while the node has a record (its taint needs looking at every pass). */
  watching(name: string): boolean {
    return this.#nodes.has(name);
  }

  forget(name: string): void {
    this.#nodes.delete(name);
  }

  /** Nodes judged flapping now (the metric). */
  flappingCount(): number {
    let n = 0;
    for (const rec of this.#nodes.values()) if (rec.flapping) n++;
    return n;
  }

  #prune(rec: FlapRecord, now: number): void {
    let drop = 0;
    while (drop < rec.returns.length && now - (rec.returns[drop] as number) > this.#windowMs) drop++;
    if (drop > 0) rec.returns.splice(0, drop);
  }
}
