/**
 * Annotations the controller sets on every Zone so `sheepctl zones` and the dashboard can explain what it is (not)
 * doing. Kept apart from zone.ts, which loads zod, so the browser bundle can read them without it.
 */
export const ANNOTATION_MASTER_DISRUPTION = 'shepherd.io/master-disruption';
export const ANNOTATION_CIRCUIT_BREAKER = 'shepherd.io/lease-circuit-breaker';
export const ANNOTATION_LEADER = 'shepherd.io/controller-leader';
/** The controller's settings that decide a zone's fate, as JSON (`NodeLifecycleSettings`), for `sheepctl explain`. */
export const ANNOTATION_SETTINGS = 'shepherd.io/node-lifecycle-settings';
/** The zone's NoExecute queue, as JSON (`TaintQueueNote`), while nodes wait in it. */
export const ANNOTATION_TAINT_QUEUE = 'shepherd.io/taint-queue';

/** What `shepherd.io/node-lifecycle-settings` holds: the controller's flags, in seconds and per second. */
export interface NodeLifecycleSettings {
  nodeMonitorPeriodSeconds: number;
  nodeMonitorGracePeriodSeconds: number;
  nodeStartupGracePeriodSeconds: number;
  nodeEvictionRate: number;
  secondaryNodeEvictionRate: number;
  largeClusterSizeThreshold: number;
  unhealthyZoneThreshold: number;
}

/**
 * What `shepherd.io/taint-queue` holds: how many nodes wait, and the first of them in order with the earliest time
 * the zone's token bucket lets the tainter take each (absent while the zone's rate is 0), as of the controller's last
 * pass.
 */
export interface TaintQueueNote {
  length: number;
  next: Array<{ node: string; at?: string }>;
}

/** A JSON annotation read back; undefined when it is missing or not an object. */
export function parseJsonAnnotation<T extends object>(value: string | undefined): T | undefined {
  if (value === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(value);
    return v !== null && typeof v === 'object' ? (v as T) : undefined;
  } catch {
    return undefined;
  }
}
