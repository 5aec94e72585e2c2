import { formatTime, type Clock } from '../../core/clock.js';
import {
  ANNOTATION_SETTINGS,
  ANNOTATION_TAINT_QUEUE,
  type NodeLifecycleSettings,
  type TaintQueueNote,
} from '../../core/zone-annotations.js';
import type { NodeLifecycleConfig } from './config.js';
import { earliestTaintTimes } from './taint-eta.js';
import type { ZoneQueues } from './zone-queues.js';

/** Queue heads shown on a Zone object: enough for `sheepctl explain`, small enough to rewrite per taint. */
export const QUEUE_NOTE_LIMIT = 10;

/** The settings annotation's value (constant for a controller: computed once). */
export function settingsNote(c: NodeLifecycleConfig): string {
  const s: NodeLifecycleSettings = {
    nodeMonitorPeriodSeconds: c.nodeMonitorPeriodMs / 1000,
    nodeMonitorGracePeriodSeconds: c.nodeMonitorGracePeriodMs / 1000,
    nodeStartupGracePeriodSeconds: c.nodeStartupGracePeriodMs / 1000,
    nodeEvictionRate: c.nodeEvictionRate,
    secondaryNodeEvictionRate: c.secondaryNodeEvictionRate,
    largeClusterSizeThreshold: c.largeClusterSizeThreshold,
    unhealthyZoneThreshold: c.unhealthyZoneThreshold,
  };
  return JSON.stringify(s);
}

/**
 * The annotations the controller adds to a Zone object so `sheepctl explain` can show its live view
 * (docs/verdicts.md#live-picture): its settings, and while nodes wait for a NoExecute taint, the queue's head with
 * the earliest taint of each (`earliestTaintTimes`). Nothing is read or built for an empty queue.
 */
export function zoneNotes(settings: string, queues: ZoneQueues, zone: string, clock: Clock): Record<string, string> {
  const s = queues.schedule(zone, QUEUE_NOTE_LIMIT);
  if (s === undefined || s.length === 0) return { [ANNOTATION_SETTINGS]: settings };
  const now = clock.monotonic();
  const etas = earliestTaintTimes(
    s.bucket,
    now,
    s.items.map((x) => x.processAt),
  );
  const wall = clock.now();
  const note: TaintQueueNote = {
    length: s.length,
    next: s.items.map((x, i) => {
      const eta = etas?.[i];
      return eta === undefined ? { node: x.value } : { node: x.value, at: formatTime(wall + (eta - now)) };
    }),
  };
  return { [ANNOTATION_SETTINGS]: settings, [ANNOTATION_TAINT_QUEUE]: JSON.stringify(note) };
}
