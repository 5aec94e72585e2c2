/**
 * How the controller weighs peer witnesses before it convicts a silent node (docs/witnesses.md#the-verdict).
 * Durations are milliseconds.
 */
export interface WitnessWeighingConfig {
  /** --witness-quorum: witnesses that must still reach the node; 0 turns the weighing off. */
  quorum: number;
  /** --witness-min-zones: distinct zones those witnesses must come from. */
  minZones: number;
  /** --node-partition-policy: `hold` keeps a partitioned node's pods, `evict` treats it as dead (and says so). */
  policy: 'hold' | 'evict';
  /** --node-partition-max-hold: after this long held, a partitioned node is treated as dead. */
  maxHoldMs: number;
}

export const DEFAULT_WITNESS_WEIGHING: WitnessWeighingConfig = Object.freeze({
  quorum: 2,
  minZones: 2,
  policy: 'hold' as const,
  maxHoldMs: 600_000,
});

/** Every problem with the settings, one sentence each naming the flag. */
export function validateWitnessWeighing(c: WitnessWeighingConfig): string[] {
  const problems: string[] = [];
  if (!(Number.isInteger(c.quorum) && c.quorum >= 0)) problems.push('--witness-quorum must be a whole number >= 0');
  if (!(Number.isInteger(c.minZones) && c.minZones >= 1)) problems.push('--witness-min-zones must be at least 1');
  if (c.quorum > 0 && c.minZones > c.quorum)
    problems.push('--witness-min-zones cannot be more than --witness-quorum: fewer witnesses cannot span more zones');
  if (!(Number.isFinite(c.maxHoldMs) && c.maxHoldMs > 0)) problems.push('--node-partition-max-hold must be positive');
  return problems;
}

/** One witness's report about the node being weighed. */
export interface WitnessReportEntry {
  witness: string;
  reachable: boolean;
}

/** The witness node as the controller sees it. */
export interface WitnessStanding {
  zone: string;
  /** Ready=True, heard from within its grace, and not itself held as partitioned. */
  alive: boolean;
  /** Controller monotonic time of its last observed heartbeat. */
  lastHeartbeat: number | undefined;
}

/** One vote, counted or not, with why not. */
export interface WitnessVote {
  witness: string;
  zone: string;
  reachable: boolean;
  counted: boolean;
  lastHeartbeat: number | undefined;
}

export interface Weighing {
  /** Enough live witnesses, in enough zones, still reach the node. */
  partitioned: boolean;
  /** Counted votes and their zones. */
  counted: number;
  zones: number;
  /** Every report about the node, in witness-name order. */
  votes: WitnessVote[];
}

/**
 * The pure weighing: a report counts only when its witness is not the node itself, says "reachable", and the
 * witness is alive in the controller's own view (Ready, heard from within its grace, not partitioned itself); a
 * silent witness's report is as old as its silence and counts for nothing. Each witness writes one report (its own
 * Node's annotation), so a lying witness is one vote, never more.
 */
export function weighWitnesses(
  target: string,
  reports: readonly WitnessReportEntry[],
  standing: (witness: string) => WitnessStanding | undefined,
  config: WitnessWeighingConfig,
): Weighing {
  const votes: WitnessVote[] = [];
  const zones = new Set<string>();
  let counted = 0;
  for (const r of reports) {
    if (r.witness === target) continue;
    const s = standing(r.witness);
    const ok = r.reachable && s !== undefined && s.alive;
    if (ok) {
      counted++;
      zones.add(s.zone);
    }
    votes.push({
      witness: r.witness,
      zone: s?.zone ?? '',
      reachable: r.reachable,
      counted: ok,
      lastHeartbeat: s?.lastHeartbeat,
    });
  }
  votes.sort((a, b) => (a.witness < b.witness ? -1 : a.witness > b.witness ? 1 : 0));
  const partitioned = config.quorum > 0 && counted >= config.quorum && zones.size >= config.minZones;
  return { partitioned, counted, zones: zones.size, votes };
}
