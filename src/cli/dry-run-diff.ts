import { formatTime } from '../core/clock.js';
import type { Verdict } from '../core/verdict.js';
import { decidedAt, span } from '../core/verdict-format.js';

/** The decisions a dry-run is compared on: when a node is marked Unknown, and when it is tainted. */
export const COMPARED_ACTIONS = ['MarkUnknown', 'Taint'] as const;
export type ComparedAction = (typeof COMPARED_ACTIONS)[number];

/** A live and a dry-run decision of the same kind about the same node further apart than this are not paired. */
export const PAIR_WINDOW_MS = 15 * 60_000;

/** One decision of either controller, paired with the other's when both made it. */
export interface DecisionPair {
  node: string;
  action: ComparedAction;
  live?: string;
  dryRun?: string;
  /** Dry-run minus live, in seconds: negative when the dry-run decided earlier. */
  differenceSeconds?: number;
}

export interface ActionSummary {
  /** Nodes the dry-run decided this about, and nodes the live controller did. */
  dryRunNodes: number;
  liveNodes: number;
  paired: number;
  earlier: number;
  later: number;
  same: number;
  /** Mean of dry-run minus live over the pairs, in seconds. */
  meanDifferenceSeconds?: number;
  dryRunOnly: number;
  liveOnly: number;
}

export interface DryRunComparison {
  from: string;
  to: string;
  pairs: DecisionPair[];
  summary: Record<ComparedAction, ActionSummary>;
}

/**
 * How the dry-run controller's decisions differed from the live controller's between `fromMs` and `toMs`
 * (docs/verdicts.md#tuning-with-dry-run): per node and decision, each dry-run decision is paired with the live one
 * closest in time (within PAIR_WINDOW_MS), closest pairs first; the rest are one-sided.
 */
export function compareDryRun(verdicts: readonly Verdict[], fromMs: number, toMs: number): DryRunComparison {
  const groups = new Map<string, { node: string; action: ComparedAction; live: number[]; dry: number[] }>();
  for (const v of verdicts) {
    const t = decidedAt(v);
    if (!(t >= fromMs && t <= toMs) || !(COMPARED_ACTIONS as readonly string[]).includes(v.action)) continue;
    const key = `${v.node}\u0000${v.action}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { node: v.node, action: v.action as ComparedAction, live: [], dry: [] }));
    (v.dryRun ? g.dry : g.live).push(t);
  }
  const pairs: DecisionPair[] = [];
  for (const g of groups.values()) pairs.push(...pairGroup(g.node, g.action, g.live, g.dry));
  const first = (p: DecisionPair): string => [p.live, p.dryRun].filter((x) => x !== undefined).sort()[0] as string;
  pairs.sort(
    (a, b) => a.node.localeCompare(b.node) || first(a).localeCompare(first(b)) || a.action.localeCompare(b.action),
  );
  return {
    from: formatTime(fromMs),
    to: formatTime(toMs),
    pairs,
    summary: { MarkUnknown: summarise(pairs, 'MarkUnknown'), Taint: summarise(pairs, 'Taint') },
  };
}

function pairGroup(node: string, action: ComparedAction, live: number[], dry: number[]): DecisionPair[] {
  const candidates: Array<[number, number, number]> = [];
  dry.forEach((d, i) =>
    live.forEach((l, j) => {
      if (Math.abs(d - l) <= PAIR_WINDOW_MS) candidates.push([Math.abs(d - l), i, j]);
    }),
  );
  candidates.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const usedDry = new Set<number>();
  const usedLive = new Set<number>();
  const out: DecisionPair[] = [];
  for (const [, i, j] of candidates) {
    if (usedDry.has(i) || usedLive.has(j)) continue;
    usedDry.add(i);
    usedLive.add(j);
    const d = dry[i] as number;
    const l = live[j] as number;
    out.push({ node, action, live: formatTime(l), dryRun: formatTime(d), differenceSeconds: (d - l) / 1000 });
  }
  dry.forEach((d, i) => usedDry.has(i) || out.push({ node, action, dryRun: formatTime(d) }));
  live.forEach((l, j) => usedLive.has(j) || out.push({ node, action, live: formatTime(l) }));
  return out;
}

function summarise(pairs: readonly DecisionPair[], action: ComparedAction): ActionSummary {
  const mine = pairs.filter((p) => p.action === action);
  const both = mine.filter((p) => p.differenceSeconds !== undefined);
  const diffs = both.map((p) => p.differenceSeconds as number);
  const mean = diffs.length === 0 ? undefined : diffs.reduce((a, b) => a + b, 0) / diffs.length;
  return {
    dryRunNodes: new Set(mine.filter((p) => p.dryRun !== undefined).map((p) => p.node)).size,
    liveNodes: new Set(mine.filter((p) => p.live !== undefined).map((p) => p.node)).size,
    paired: both.length,
    earlier: diffs.filter((d) => d < 0).length,
    later: diffs.filter((d) => d > 0).length,
    same: diffs.filter((d) => d === 0).length,
    ...(mean === undefined ? {} : { meanDifferenceSeconds: Math.round(mean * 10) / 10 }),
    dryRunOnly: mine.filter((p) => p.live === undefined).length,
    liveOnly: mine.filter((p) => p.dryRun === undefined).length,
  };
}

/** `30s earlier`, `1m5s later`, `at the same time`, `dry-run only`, `live only`. */
export function differenceText(p: DecisionPair): string {
  if (p.differenceSeconds === undefined) return p.live === undefined ? 'dry-run only' : 'live only';
  if (p.differenceSeconds === 0) return 'at the same time';
  return `${span(p.differenceSeconds)} ${p.differenceSeconds < 0 ? 'earlier' : 'later'}`;
}

/** The summary in sentences, one per decision kind. */
export function summaryText(c: DryRunComparison): string[] {
  const mean = (s: ActionSummary): string => {
    if (s.meanDifferenceSeconds === undefined) return '';
    const m = s.meanDifferenceSeconds;
    return m === 0 ? ', at the same time on average' : `, ${span(m)} ${m < 0 ? 'earlier' : 'later'} on average`;
  };
  const sentence = (action: ComparedAction): string => {
    const s = c.summary[action];
    return (
      `${action}: the dry-run on ${s.dryRunNodes} node(s), the live controller on ${s.liveNodes}; ` +
      `${s.paired} paired (${s.earlier} earlier, ${s.later} later, ${s.same} at the same time${mean(s)}), ` +
      `${s.dryRunOnly} by the dry-run only, ${s.liveOnly} by the live controller only.`
    );
  };
  return COMPARED_ACTIONS.map(sentence);
}
