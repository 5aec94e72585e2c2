import type { Lease } from '../core/lease.js';
import { age, ago } from './age.js';
import type { Cell } from './table-printer.js';

export const LEASE_HEADERS = ['NAME', 'HOLDER', 'DURATION', 'RENEWED', 'AGE'];
export const LEASE_WIDE_HEADERS = [
  'NAMESPACE',
  'NAME',
  'HOLDER',
  'DURATION',
  'RENEWED',
  'ACQUIRED',
  'TRANSITIONS',
  'AGE',
];

export function leaseRow(l: Lease, now: number, wide: boolean): Cell[] {
  const base = [l.metadata.name, l.spec.holderIdentity, `${l.spec.leaseDurationSeconds}s`, ago(l.spec.renewTime, now)];
  if (!wide) return [...base, age(l.metadata.creationTimestamp, now)];
  return [
    l.metadata.namespace,
    ...base,
    l.spec.acquireTime === undefined ? '' : ago(l.spec.acquireTime, now),
    String(l.spec.leaseTransitions ?? 0),
    age(l.metadata.creationTimestamp, now),
  ];
}
