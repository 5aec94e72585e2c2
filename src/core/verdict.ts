import type { ObjectMeta } from './meta.js';
import type { VerdictEvidence, VerdictInput } from './verdict-schema.js';

// Types only (erased at run time).
export type { VerdictEvidence, VerdictInput };

/** The label that names a Verdict's node, so `?labelSelector=shepherd.io/node=n1` finds them. */
export const VERDICT_NODE_LABEL = 'shepherd.io/node';
/** Verdicts kept per node (the newest) and how long one lives by default. */
export const MAX_VERDICTS_PER_NODE = 50;
export const DEFAULT_VERDICT_TTL_MS = 24 * 60 * 60_000;

export interface Verdict {
  apiVersion: 'shepherd.io/v1';
  kind: 'Verdict';
  metadata: ObjectMeta;
  node: string;
  action: string;
  reason: string;
  message: string;
  dryRun: boolean;
  evidence: VerdictEvidence;
  next?: string;
}
