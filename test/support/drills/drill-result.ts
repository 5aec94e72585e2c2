/**
 * What every drill returns: the counts it reached and every violation of its promise it found. The short
 * forms in test/e2e/storage-drills.test.ts assert `problems` is empty and the counts are real; the long
 * forms (run-all.ts) print the same record into RELIABILITY.md.
 */
export interface DrillResult {
  drill: string;
  /** The settings it ran with (cycles, changes, renewals, ...). */
  settings: Record<string, number | string>;
  /** What it reached: acknowledged writes, events seen, bytes, ... */
  counts: Record<string, number | string>;
  /** Each broken promise, one sentence each; empty when the drill passed. */
  problems: string[];
  durationMs: number;
}

export class DrillLog {
  readonly problems: string[] = [];
  readonly counts: Record<string, number | string> = {};

  /** Records a problem unless `ok`; returns ok so callers can stop early. */
  check(ok: boolean, problem: string): boolean {
    if (!ok && this.problems.length < 50) this.problems.push(problem);
    return ok;
  }

  add(name: string, n = 1): void {
    this.counts[name] = (Number(this.counts[name] ?? 0) || 0) + n;
  }

  set(name: string, value: number | string): void {
    this.counts[name] = value;
  }
}

export function elapsedSince(startMs: number): number {
  return Math.round(performance.now() - startMs);
}
