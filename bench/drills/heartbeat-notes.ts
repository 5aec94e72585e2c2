// The explanation RELIABILITY.md gives next to drill 7's figures: what issue 2's "under 50 MB after 1M
// renewals over 1,000 leases" means for a store that must keep --watch-history of change log.
import type { DrillResult } from './drill-result.js';

const num = (r: DrillResult | undefined, k: string): number => Number(r?.counts[k] ?? Number.NaN);

export function heartbeatNotes(results: DrillResult[]): string {
  const fleet = results.find((r) => r.drill.includes('heartbeat') && r.settings['pace'] === 'fleet');
  const flat = results.find((r) => r.drill.includes('heartbeat') && r.settings['pace'] === 'flat-out');
  if (!fleet && !flat) return '';
  const lines = ['## Drill 7 and issue 2\'s 50 MB target', ''];
  if (fleet) {
    lines.push(
      `At fleet pace (1,000 leases renewed every 10 s, i.e. 100 renewals a second, the store's own compaction loop on a`,
      `fake clock so ${fleet.settings['renewals']} renewals span ${Math.round(Number(fleet.settings['renewals']) / 100 / 3600)} h of fleet time), the change log holds`,
      `${num(fleet, 'finalChangeLogRows')} rows (bound ${num(fleet, 'changeLogRowBound')}: 5 min of history plus one 10 s compaction period) and the`,
      `database file levels off at **${num(fleet, 'steadyStateDbMB')} MB** once the first history window is full (largest seen ${num(fleet, 'maxDbMB')} MB,`,
      `WAL at most ${num(fleet, 'maxWalMB')} MB): under the 50 MB target, and flat from then on: freed pages are reused, nothing accumulates.`,
      '',
    );
  }
  if (flat) {
    const rows = num(flat, 'finalChangeLogRows');
    const perRow = rows > 0 ? Math.round((num(flat, 'finalDbMB') * 1024 * 1024) / rows) : Number.NaN;
    lines.push(
      `Flat out (store level, no HTTP: renewals as fast as the store commits them, ${num(flat, 'renewalsPerSecond')}/s here, real clock, default`,
      `\`--watch-history 5m\`), ${flat.settings['renewals']} renewals take about ${Math.round(Number(flat.settings['renewals']) / num(flat, 'renewalsPerSecond'))} s, so nearly all of them`,
      `are still inside the history window when the run ends: the log holds **${rows} rows** and the file is **${num(flat, 'finalDbMB')} MB**`,
      `(about ${perRow} bytes per logged renewal, index entries included). That is over 50 MB, and it is not a leak: the history`,
      'setting promises watch resumes across 5 minutes, and that much history at this rate is that many rows. What would move it:',
      '',
      '- store each logged version as a delta against an earlier version of the same object. Compression alone does not get',
      '  there: measured on 20,000 renewals of 1,000 leases, raw deflate with a fixed dictionary of typical objects gives',
      '  ~120 bytes per renewal compressed alone, 61 per renewal when a commit of 5 is compressed together, 46.5 at 20 and',
      '  42 at 100, because every version repeats the object\'s own entropy (random uid, creation time, name); with the row',
      '  and index overhead that is still ~45-55 MB for 1M renewals. A renewal differs from the previous version only in',
      '  `renewTime`: the same measurement with each renewal logged as (previous revision, changed field) gives 24.6 bytes',
      '  alone and ~5 in commits of 20. So: deltas, with a full version every so often and compaction keeping any full',
      '  version a surviving delta needs, in per-commit compressed rows. A new log format, not built yet;',
      '- a shorter `--watch-history` (the size is rate × history); or a cap on history rows besides the time floor (etcd compacts by',
      '  revision count too), at the price of more Gone/relists for slow watchers;',
      '- at a real fleet\'s cadence the question does not arise (previous paragraph).',
      '',
    );
  }
  return lines.join('\n');
}
