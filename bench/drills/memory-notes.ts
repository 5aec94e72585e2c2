// The explanation RELIABILITY.md gives next to drill 8's figures: what "memory bounded in bytes" means for the
// server under watchers that never read and Events of the largest size the API takes.
import type { DrillResult } from '../../test/support/drills/drill-result.js';

export function memoryNotes(results: DrillResult[]): string {
  const r = results.find((x) => x.drill.startsWith('8 '));
  if (r === undefined) return '';
  const c = r.counts;
  const s = r.settings;
  const lines = [
    '## Drill 8 and bounded memory',
    '',
    `${s['silentWatchers']} watchers open a watch on Events and never read a byte; then ${c['eventsWritten']} Events of the largest size`,
    `the API accepts (${Math.round(Number(s['eventBytes']) / 1024)} KiB each: 64 KiB of annotations, 64 labels, a 1 KiB message, 253-character names)`,
    `are written as fast as the server takes them (${c['writeSeconds']} s). The server runs in its own process with a`,
    `${s['heapLimitMiB']} MiB V8 heap (\`--max-old-space-size\`) and \`--max-watch-unsent-bytes ${s['maxWatchUnsentBytes']}\`:`,
    `every silent watcher was ended with a 429 ERROR line (${c['watchesEnded']} watches ended in all, counting the`,
    `reading watcher's own cut-offs under the burst, after each of which it resumed and went on to see all`,
    `${c['readingWatcherEvents']} Events), and the server's RSS went from **${c['baselineRssMiB']} MiB** idle to at most`,
    `**${c['peakRssMiB']} MiB** (${c['rssGrowthMiB']} MiB of growth; the drill's bound is ${s['rssGrowthLimitMiB']} MiB).`,
  ];
  if (c['controlServer'] !== undefined) {
    lines.push(
      '',
      `Control: the same load on the same heap with the byte budget off (\`4Gi\`; only the 10,000-event count applies)`,
      `${String(c['controlServer']).startsWith('exited') ? `killed the server (${c['controlServer']}) after ${c['controlEventsAccepted']} Events` : `left the server running (${c['controlEventsAccepted']} Events): the drill failed to tell the difference`},`,
      'because every silent watcher then keeps every change it has not read.',
    );
  }
  if (Number(s['listNodes']) > 0)
    lines.push('', `Listing ${c['nodesListed']} nodes peaked at ${c['listPeakRssMiB']} MiB RSS.`);
  return lines.join('\n');
}
