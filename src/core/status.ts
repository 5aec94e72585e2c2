import type { StatusDetails, StatusReason } from './errors.js';

/** The body of every error answer (docs/api.md "Status"). */
export interface Status {
  apiVersion: 'v1';
  kind: 'Status';
  metadata: Record<string, never>;
  status: 'Failure';
  reason: StatusReason;
  code: number;
  message: string;
  details?: StatusDetails;
}

export function isStatus(x: unknown): x is Status {
  return (
    typeof x === 'object' &&
    x !== null &&
    (x as { kind?: unknown }).kind === 'Status' &&
    typeof (x as { reason?: unknown }).reason === 'string'
  );
}
