import type { Lease } from '../core/lease.js';
import {
  ANNOTATION_CIRCUIT_BREAKER,
  ANNOTATION_LEADER,
  ANNOTATION_MASTER_DISRUPTION,
  type Zone,
} from '../core/zone.js';
import { age } from './age.js';
import type { Cell } from './table-printer.js';

export const ZONE_HEADERS = ['NAME', 'STATE', 'NODES', 'NOT-READY', 'EVICTION-RATE'];
export const ZONE_WIDE_HEADERS = [...ZONE_HEADERS, 'AGE'];

/** Taints per second, the unit of the controller's token buckets (`0.1/s`; `0/s` when eviction is stopped). */
export function formatRate(rate: number): string {
  return `${Number(rate.toFixed(4))}/s`;
}

export function zoneRow(z: Zone, now: number, wide: boolean): Cell[] {
  const row = [
    z.metadata.name,
    z.status.state,
    String(z.status.nodes),
    String(z.status.notReady),
    formatRate(z.status.evictionRate),
  ];
  return wide ? [...row, age(z.metadata.creationTimestamp, now)] : row;
}

/**
 * The lines under the zones table that say why the controller is (not) tainting: the leader, master-disruption
 * mode (every zone FullDisruption, all rates 0: docs/node-lifecycle.md#master-disruption) and the lease circuit
 * breaker (docs/node-lifecycle.md#lease-circuit-breaker).
 */
export function zoneFooter(zones: Zone[], leader: Lease | undefined): string[] {
  const sorted = [...zones].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const annotation = (key: string): string | undefined =>
    sorted.map((z) => z.metadata.annotations?.[key]).find((v) => v !== undefined && v !== '');
  const lines: string[] = [];
  const holder = leader?.spec.holderIdentity ?? annotation(ANNOTATION_LEADER);
  if (holder !== undefined) lines.push(`Controller leader: ${holder}`);
  if (annotation(ANNOTATION_MASTER_DISRUPTION) === 'true') {
    lines.push(
      'Master disruption: every zone is in FullDisruption, so the controller assumes its own view is broken: ' +
        'it has removed NoExecute taints and stopped tainting until a zone recovers.',
    );
  }
  const breaker = annotation(ANNOTATION_CIRCUIT_BREAKER);
  if (breaker !== undefined) {
    lines.push(
      `Lease circuit breaker holding: ${breaker} (no node is marked Unknown or tainted until the lease cache catches up)`,
    );
  }
  return lines;
}
