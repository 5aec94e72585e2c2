/** The chart's data, in uPlot's column layout: seconds since the epoch, then one column per zone. */
export interface HistorySeries {
  times: number[];
  zones: string[];
  values: Array<Array<number | null>>;
}

/**
 * Not-ready nodes per zone over a sliding window (15 minutes), sampled once a step from what the page's zone
 * watch holds: the page keeps it, so the chart starts when the page opens, not before (the API keeps no history).
 */
export class ZoneHistory {
  readonly #windowMs: number;
  readonly #stepMs: number;
  readonly #times: number[] = [];
  readonly #columns = new Map<string, Array<number | null>>();

  constructor(options: { windowMs?: number; stepMs?: number } = {}) {
    this.#windowMs = options.windowMs ?? 15 * 60_000;
    this.#stepMs = options.stepMs ?? 1_000;
  }

  /**
   * Records the counts at `now` (ms). Within one step of the last sample the sample is overwritten, so a burst of
   * zone changes keeps only its latest state; a zone absent from `counts` gets a gap.
   */
  record(now: number, counts: ReadonlyMap<string, number>): void {
    const last = this.#times[this.#times.length - 1];
    const overwrite = last !== undefined && now - last * 1000 < this.#stepMs;
    if (!overwrite) {
      this.#times.push(now / 1000);
      for (const column of this.#columns.values()) column.push(null);
    }
    const at = this.#times.length - 1;
    for (const [zone, count] of counts) {
      let column = this.#columns.get(zone);
      if (column === undefined) {
        column = new Array<number | null>(this.#times.length).fill(null);
        this.#columns.set(zone, column);
      }
      column[at] = count;
    }
    if (overwrite) for (const [zone, column] of this.#columns) if (!counts.has(zone)) column[at] = null;
    this.#trim(now);
  }

  #trim(now: number): void {
    const oldest = (now - this.#windowMs) / 1000;
    let drop = 0;
    while (drop < this.#times.length && (this.#times[drop] as number) < oldest) drop++;
    if (drop === 0) return;
    this.#times.splice(0, drop);
    for (const [zone, column] of this.#columns) {
      column.splice(0, drop);
      if (column.every((v) => v === null)) this.#columns.delete(zone);
    }
  }

  series(): HistorySeries {
    const zones = [...this.#columns.keys()].sort();
    return {
      times: this.#times.slice(),
      zones,
      values: zones.map((z) => (this.#columns.get(z) as Array<number | null>).slice()),
    };
  }
}
