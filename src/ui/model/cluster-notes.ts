import type { Lease } from '../../core/lease.js';
import type { Zone } from '../../core/zone.js';
import {
  ANNOTATION_CIRCUIT_BREAKER,
  ANNOTATION_LEADER,
  ANNOTATION_MASTER_DISRUPTION,
} from '../../core/zone-annotations.js';

export interface LeaderInfo {
  holder: string;
  renewTime: number | undefined;
  /** renewTime + leaseDurationSeconds is past: nobody leads until another controller takes the lease. */
  expired: boolean;
}

/** What the Overview's banners say, read from the controller's Zone annotations and its leader Lease. */
export interface ClusterNotes {
  /** Every zone is FullDisruption: the controller distrusts its own view and has stopped tainting. */
  masterDisruption: boolean;
  /** The lease circuit breaker's note when it is holding the controller's passes. */
  breaker: string | undefined;
  leader: LeaderInfo | undefined;
}

/** The same reading as `sheepctl zones` (src/cli/zone-table.ts): the first zone, by name, that carries the note. */
export function clusterNotes(zones: Iterable<Zone>, leaderLease: Lease | undefined, now: number): ClusterNotes {
  const sorted = [...zones].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const annotation = (key: string): string | undefined =>
    sorted.map((z) => z.metadata.annotations?.[key]).find((v) => v !== undefined && v !== '');
  let leader: LeaderInfo | undefined;
  const holder = leaderLease?.spec.holderIdentity ?? annotation(ANNOTATION_LEADER);
  if (holder !== undefined && holder !== '') {
    const renew = leaderLease?.spec.renewTime === undefined ? NaN : Date.parse(leaderLease.spec.renewTime);
    const duration = (leaderLease?.spec.leaseDurationSeconds ?? 0) * 1000;
    leader = {
      holder,
      renewTime: Number.isNaN(renew) ? undefined : renew,
      expired: leaderLease !== undefined && !Number.isNaN(renew) && renew + duration < now,
    };
  }
  return {
    masterDisruption: annotation(ANNOTATION_MASTER_DISRUPTION) === 'true',
    breaker: annotation(ANNOTATION_CIRCUIT_BREAKER),
    leader,
  };
}
