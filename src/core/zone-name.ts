import { nameProblem } from './names.js';
import { REGION_LABEL, ZONE_LABEL, zoneKeyOf, zoneObjectName } from './node.js';

/**
 * Why a node's zone labels make no valid Zone name, or undefined. The node lifecycle controller names each Zone
 * object after the zone key (`region.zone`, or the zone; `default` for none), and a Zone name follows the object
 * name rules, so labels that break them would fail its Zone write on every pass. Label values may hold capitals
 * and `_`, and a region without a zone gives `region.`: neither is a name. No zod: the agent checks its flags
 * with it before registering.
 */
export function zoneLabelProblem(
  labels: Record<string, string> | undefined,
): { label: string; message: string } | undefined {
  const key = zoneKeyOf(labels);
  const problem = nameProblem(zoneObjectName(key));
  if (problem === undefined) return undefined;
  // Blame the region label when it is itself no name part, else the zone label (wrong, or missing after a region).
  const region = labels?.[REGION_LABEL];
  const label = region !== undefined && region !== '' && nameProblem(region) !== undefined ? REGION_LABEL : ZONE_LABEL;
  return {
    label,
    message: `the zone key "${key}" (from the labels ${ZONE_LABEL} and ${REGION_LABEL}) is not a valid Zone name: ${problem}; use lowercase letters, digits, '-' and '.', and give a zone with a region`,
  };
}
