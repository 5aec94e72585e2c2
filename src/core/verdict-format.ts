import { parseTime } from './clock.js';
import type { Verdict } from './verdict.js';

/** Decision time of a verdict in ms (its evidence's observedAt; NaN when unparsable). */
export const decidedAt = (v: Verdict): number => parseTime(v.evidence.observedAt);

/** Oldest first, by decision time, then name (a timeline: the newest last). */
export function sortOldestFirst(vs: readonly Verdict[]): Verdict[] {
  return [...vs].sort((a, b) => decidedAt(a) - decidedAt(b) || a.metadata.name.localeCompare(b.metadata.name));
}

/**
 * `12:03:10Z` for a time on the day of `now` (UTC), `11-28 23:59:01Z` for another day: timelines stay narrow and
 * unambiguous. Undefined and unparsable times are `<unknown>`.
 */
export function clockTime(rfc3339: string | undefined, now: number): string {
  if (rfc3339 === undefined) return '<unknown>';
  const t = parseTime(rfc3339);
  if (Number.isNaN(t)) return '<unknown>';
  const iso = new Date(t).toISOString();
  const today = new Date(now).toISOString().slice(0, 10);
  return iso.slice(0, 10) === today ? `${iso.slice(11, 19)}Z` : `${iso.slice(5, 10)} ${iso.slice(11, 19)}Z`;
}

/** `52s`, `2m5s`, `3h`: a span as people read it. */
export function span(seconds: number): string {
  const s = Math.round(Math.abs(seconds));
  if (s < 120) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 === 0 ? '' : `${s % 60}s`}`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}h${m === 0 ? '' : `${m}m`}`;
}

/** `0.1/s`. */
export const rate = (r: number): string => `${Number(r.toFixed(4))}/s`;

/** The evidence of one verdict in one line: silence, lease, zone and queue, breaker, master disruption. */
export function evidenceLine(v: Verdict, now: number): string {
  const e = v.evidence;
  const parts: string[] = [];
  if (e.silentForSeconds !== undefined) {
    const grace = e.graceSeconds === undefined ? '' : ` (grace ${span(e.graceSeconds)})`;
    parts.push(
      `silent ${span(e.silentForSeconds)}${grace}, last renewal observed ${clockTime(e.lastRenewalObservedAt, now)}`,
    );
  }
  if (e.lease?.cachedResourceVersion !== undefined) {
    const live = e.lease.liveResourceVersion === undefined ? '' : `, live ${e.lease.liveResourceVersion}`;
    parts.push(`lease resourceVersion ${e.lease.cachedResourceVersion} cached${live}`);
  }
  if (e.zone) {
    const z = e.zone;
    let zone = `zone ${z.name} ${z.state}, ${z.notReady} of ${z.nodes} not Ready, ${rate(z.evictionRate)}`;
    if (z.queuePosition !== undefined) zone += `, queue position ${z.queuePosition}`;
    if (z.earliestTaintAt !== undefined) zone += `, earliest taint ${clockTime(z.earliestTaintAt, now)}`;
    parts.push(zone);
  }
  if (e.breaker) parts.push(e.breaker.open ? `breaker open: ${e.breaker.reason ?? ''}`.trimEnd() : 'breaker closed');
  if (e.masterDisruption) parts.push('master disruption');
  if (e.witnesses && e.witnesses.length > 0) {
    const w = e.witnesses.map((x) => `${x.node} (${x.zone || 'default'}) ${x.reachable ? 'reaches it' : 'lost it'}`);
    parts.push(`witnesses: ${w.join(', ')}`);
  }
  return parts.join('; ');
}

/** One verdict as a block of the timeline: time and decision, the message, the evidence, and `next`. */
export function verdictBlock(v: Verdict, now: number, indent: string): string {
  const head = `${clockTime(v.evidence.observedAt, now)}  ${v.dryRun ? '[dry-run] ' : ''}${v.action} (${v.reason})`;
  const pad = `${indent}${' '.repeat(clockTime(v.evidence.observedAt, now).length + 2)}`;
  const lines = [`${indent}${head}`, `${pad}${v.message}`, `${pad}evidence: ${evidenceLine(v, now)}`];
  if (v.next) lines.push(`${pad}next: ${v.next}`);
  return lines.join('\n') + '\n';
}
