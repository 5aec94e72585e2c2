/**
 * When, by this server's own clock, the store had reached each revision: samples of (time, revision) taken
 * as the server goes. A write at revision r happened no later than the first sample whose revision is at least
 * r, so "when was this object last written" can be answered from its resourceVersion, which no client chooses,
 * instead of from a timestamp a client wrote (Kubernetes expires Events by an etcd lease granted at the write, to
 * the same end). Precision is the sampling interval; memory is one pair per sample.
 */
export class RevisionTimes {
  readonly #samples: { at: number; revision: number }[] = [];
  readonly #max: number;

  constructor(maxSamples = 10_000) {
    this.#max = maxSamples;
  }

  get size(): number {
    return this.#samples.length;
  }

  /** At time `at` every write up to `revision` had happened. */
  record(at: number, revision: number): void {
    const last = this.#samples[this.#samples.length - 1];
    if (last !== undefined && revision <= last.revision) return;
    this.#samples.push({ at, revision });
    // Thin out from the front: the oldest sample then answers for more revisions, always with a time that is
    // later than their writes, never earlier.
    if (this.#samples.length > this.#max) this.#samples.splice(1, 1);
  }

  /**
   * A time at which the write at `revision` had surely happened (at most one sampling interval after it), or
   * undefined when it came after the newest sample. Revisions older than every sample answer the oldest one.
   */
  writtenBy(revision: number): number | undefined {
    let lo = 0;
    let hi = this.#samples.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#samples[mid] as { revision: number }).revision >= revision) hi = mid;
      else lo = mid + 1;
    }
    return this.#samples[lo]?.at;
  }

  /** Forgets samples older than `cutoff`, keeping the newest of them: older revisions still map to a time before it. */
  prune(cutoff: number): void {
    let drop = 0;
    while (drop + 1 < this.#samples.length && (this.#samples[drop + 1] as { at: number }).at <= cutoff) drop++;
    if (drop > 0) this.#samples.splice(0, drop);
  }
}
