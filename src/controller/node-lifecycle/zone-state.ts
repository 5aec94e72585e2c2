import type { ZoneState as CoreZoneState } from '../../core/zone.js';

/** The zone states of the Zone object (src/core/zone.ts); `Initial` only ever comes from the controller's map. */
export type ZoneState = CoreZoneState;

/** `--unhealthy-zone-threshold` default (docs/node-lifecycle.md#defaults-and-flags). */
export const DEFAULT_UNHEALTHY_ZONE_THRESHOLD = 0.55;

/**
 * Upstream needs strictly more than this many not-Ready nodes before a zone can be PartialDisruption
 * (`notReadyNodes > 2`), so tiny zones are never judged partially disrupted.
 */
const MIN_NOT_READY_FOR_PARTIAL = 2;

/**
 * `ComputeZoneState` (node_lifecycle_controller.go) from the counts of a zone's counted nodes, Ready or not (a
 * node without a Ready condition is not Ready), as the monitor pass tallies them:
 * - no node Ready (and at least one counted) → FullDisruption;
 * - more than 2 not Ready and notReady/total >= threshold → PartialDisruption;
 * - else Normal (also for an empty zone, which upstream never passes).
 * The ratio and the threshold are compared in float32, as upstream does (`float32(notReady)/float32(total)`,
 * threshold a float32 flag), so borderline zones land on the same side as in kube-controller-manager.
 */
export function zoneStateOf(
  ready: number,
  notReady: number,
  unhealthyZoneThreshold: number,
): Exclude<ZoneState, 'Initial'> {
  if (ready === 0 && notReady > 0) return 'FullDisruption';
  const notReadyRatio = float32Ratio(notReady, ready + notReady);
  if (notReady > MIN_NOT_READY_FOR_PARTIAL && notReadyRatio >= Math.fround(unhealthyZoneThreshold))
    return 'PartialDisruption';
  return 'Normal';
}

/**
 * float32(a)/float32(b) rounded to float32. Dividing the two float32 values in double precision and rounding
 * once is exact here: a double holds more than twice float32's precision, so there is no double-rounding error.
 */
function float32Ratio(a: number, b: number): number {
  return Math.fround(Math.fround(a) / Math.fround(b));
}
