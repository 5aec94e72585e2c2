import { nameProblem } from './names.js';

/**
 * Peer witnesses (docs/witnesses.md): an agent started with `--witness-bind-address` publishes where it answers
 * probes, and what it observed of the peers it probes, as two annotations on its OWN Node. Node restriction
 * (docs/api.md#node-restriction) already lets a node write its own Node's annotations and no other's, so a node can
 * only ever report what it observed itself. No zod here: the agent reads and writes these.
 */
export const WITNESS_ADDRESS_ANNOTATION = 'shepherd.io/witness-address';
export const WITNESS_REPORT_ANNOTATION = 'shepherd.io/witness-report';

/** Entries an agent writes at most, and a reader takes at most (a longer report is cut, never rejected). */
export const MAX_WITNESS_REPORT_ENTRIES = 32;

/** One peer as its witness last saw it: reachable or not, since when (the witness's wall clock, for people). */
export interface WitnessObservation {
  reachable: boolean;
  since: string;
}

/** `{"node-b":{"reachable":true,"since":"…"}}`, in name order so equal reports are equal strings. */
export function formatWitnessReport(entries: ReadonlyMap<string, WitnessObservation>): string {
  const names = [...entries.keys()].sort().slice(0, MAX_WITNESS_REPORT_ENTRIES);
  const out: Record<string, WitnessObservation> = {};
  for (const name of names) {
    const o = entries.get(name) as WitnessObservation;
    out[name] = { reachable: o.reachable, since: o.since };
  }
  return JSON.stringify(out);
}

/**
 * The report of an annotation value; malformed text or entries are skipped (a report is evidence, never trusted
 * to be well formed: any node writes its own), and at most MAX_WITNESS_REPORT_ENTRIES entries are read.
 */
export function parseWitnessReport(text: string | undefined): Map<string, WitnessObservation> {
  const out = new Map<string, WitnessObservation>();
  if (text === undefined || text.length === 0) return out;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return out;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return out;
  for (const [name, v] of Object.entries(raw as Record<string, unknown>)) {
    if (out.size >= MAX_WITNESS_REPORT_ENTRIES) break;
    if (nameProblem(name) !== undefined || typeof v !== 'object' || v === null) continue;
    const { reachable, since } = v as { reachable?: unknown; since?: unknown };
    if (typeof reachable !== 'boolean') continue;
    out.set(name, { reachable, since: typeof since === 'string' ? since.slice(0, 64) : '' });
  }
  return out;
}
