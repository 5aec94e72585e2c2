import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';

/** What the compactor needs from the store. */
export interface CompactionTarget {
  currentRevision(): Promise<number>;
  /** Compacts etcd history up to `revision`; returns the revision now compacted. */
  compact(revision: number): Promise<number>;
}

/**
 * The kube-apiserver's storage compactor, by time: every interval we note the current revision, and compact
 * to the newest noted revision that is at least `retentionMs` old, so a watch can always resume from any
 * revision of the last `retentionMs` (etcd itself keeps history forever unless someone compacts).
 */
export async function runCompactor(
  deps: { clock: Clock; log: Logger; target: CompactionTarget },
  config: { intervalMs: number; retentionMs: number },
  signal: AbortSignal,
): Promise<void> {
  const { clock, log, target } = deps;
  const samples: { at: number; revision: number }[] = [];
  while (!signal.aborted) {
    try {
      samples.push({ at: clock.monotonic(), revision: await target.currentRevision() });
      const due = pickCompactionRevision(samples, clock.monotonic() - config.retentionMs);
      if (due !== undefined) await target.compact(due);
    } catch (err) {
      if (signal.aborted) return;
      log.warn({ err }, 'etcd compaction failed; retrying at the next interval');
    }
    try {
      await clock.sleep(config.intervalMs, signal);
    } catch {
      return;
    }
  }
}

/**
 * The newest sample taken at or before `cutoff` (removing it and older ones), or undefined when none is that
 * old yet. Exported for tests.
 */
export function pickCompactionRevision(
  samples: { at: number; revision: number }[],
  cutoff: number,
): number | undefined {
  let due: number | undefined;
  while (samples.length > 0 && samples[0]!.at <= cutoff) due = samples.shift()!.revision;
  return due;
}
