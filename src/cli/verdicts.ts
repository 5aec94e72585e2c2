import type { Verdict } from '../core/verdict.js';
import type { CliDeps } from './cli-context.js';
import { compareDryRun, differenceText, summaryText } from './dry-run-diff.js';
import { encodeObject, listObject } from './output.js';
import { TablePrinter } from './table-printer.js';
import { clockTime, decidedAt, sortOldestFirst, span } from '../core/verdict-format.js';

export interface VerdictsOptions {
  node?: string | undefined;
  /** Compare the dry-run controller's verdicts with the live controller's instead of listing them. */
  dryRun: boolean;
  /** Only verdicts decided within this many ms before now. */
  sinceMs?: number | undefined;
  output: 'table' | 'json' | 'yaml';
}

export const VERDICT_HEADERS = ['TIME', 'NODE', 'ACTION', 'REASON', 'BY', 'MESSAGE'];

/**
 * `sheepctl verdicts [--node N] [--since 1h] [--dry-run]`: the controllers' verdicts oldest first (newest last, as a
 * timeline), or with `--dry-run` how the dry-run controller's decisions differed from the live controller's
 * (docs/verdicts.md#tuning-with-dry-run).
 */
export async function runVerdicts(deps: CliDeps, o: VerdictsOptions): Promise<number> {
  const list = await deps.client.verdicts.list({
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(o.node === undefined ? {} : { fieldSelector: `node=${o.node}` }),
  });
  const now = deps.now();
  const from = o.sinceMs === undefined ? -Infinity : now - o.sinceMs;
  const items = sortOldestFirst(list.items.filter((v) => decidedAt(v) >= from));
  if (o.dryRun) {
    const start = o.sinceMs === undefined ? Math.min(now, ...items.map(decidedAt)) : from;
    const c = compareDryRun(items, start, now);
    if (o.output !== 'table') {
      deps.out.write(encodeObject(o.output, c));
      return 0;
    }
    const window = o.sinceMs === undefined ? '' : ` (last ${span(o.sinceMs / 1000)})`;
    let out = `Dry-run against the live controller, ${clockTime(c.from, now)} to ${clockTime(c.to, now)}${window}:\n`;
    if (c.pairs.length === 0) out += 'No node was marked Unknown or tainted by either controller in that time.\n';
    else {
      const table = new TablePrinter(['NODE', 'DECISION', 'LIVE', 'DRY-RUN', 'DIFFERENCE']);
      out += table.format(
        c.pairs.map((p) => [
          p.node,
          p.action,
          p.live ? clockTime(p.live, now) : '',
          p.dryRun ? clockTime(p.dryRun, now) : '',
          differenceText(p),
        ]),
      );
    }
    deps.out.write(`${out}\n${summaryText(c).join('\n')}\n`);
    return 0;
  }
  if (o.output !== 'table') {
    deps.out.write(encodeObject(o.output, listObject(items, list.metadata.resourceVersion)));
    return 0;
  }
  if (items.length === 0) {
    deps.err.write('No verdicts found.\n');
    return 0;
  }
  const table = new TablePrinter(VERDICT_HEADERS);
  deps.out.write(table.format(items.map((v: Verdict) => row(v, now))));
  return 0;
}

function row(v: Verdict, now: number): string[] {
  return [clockTime(v.evidence.observedAt, now), v.node, v.action, v.reason, v.dryRun ? 'dry-run' : 'live', v.message];
}
