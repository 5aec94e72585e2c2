import type { NodeCondition } from '../../src/core/node.js';
import type { DisruptionOutcome, ZoneBook, ZoneTally } from '../../src/controller/node-lifecycle/disruption.js';
import { zoneStateOf, type ZoneState } from '../../src/controller/node-lifecycle/zone-state.js';

/** A zone's Ready conditions, one per counted node (undefined: no Ready condition), as the pass tallies them. */
export function tally(readyConditions: ReadonlyArray<NodeCondition | undefined>): ZoneTally {
  const ready = readyConditions.filter((c) => c?.status === 'True').length;
  return { ready, notReady: readyConditions.length - ready };
}

/** `ComputeZoneState` over a list of Ready conditions (the controller itself works from tallies: zoneStateOf). */
export function computeZoneState(
  readyConditions: ReadonlyArray<NodeCondition | undefined>,
  unhealthyZoneThreshold: number,
): { state: Exclude<ZoneState, 'Initial'>; ready: number; notReady: number } {
  const { ready, notReady } = tally(readyConditions);
  return { state: zoneStateOf(ready, notReady, unhealthyZoneThreshold), ready, notReady };
}

/** `ZoneBook.handleTallies` from each zone's Ready conditions, for tables. */
export function handleDisruption(
  book: ZoneBook,
  readyByZone: ReadonlyMap<string, ReadonlyArray<NodeCondition | undefined>>,
): DisruptionOutcome {
  return book.handleTallies(new Map([...readyByZone].map(([zone, conditions]) => [zone, tally(conditions)])));
}
