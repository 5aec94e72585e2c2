import { parseTime } from '../core/clock.js';

/**
 * apimachinery `duration.HumanDuration`, the AGE column of every kubectl table, ported rule for rule so a
 * shepherd user reads ages exactly as a kubectl user does. Go's int conversions truncate toward zero.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to a second in the future is tolerated as clock skew and shown as "0s", as upstream does.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const d = Math.trunc(hours / 24);
    return h === 0 ? `${d}d` : `${d}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const years = Math.trunc(hours / 24 / 365);
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

/** AGE of an RFC 3339 timestamp at `now`; `<unknown>` when it is missing or unparsable (kubectl's word). */
export function age(timestamp: string | undefined, now: number): string {
  if (timestamp === undefined || timestamp === '') return '<unknown>';
  const t = parseTime(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now - t);
}

/** `3s ago`, for heartbeat and renewal columns; `<unknown>` / `<invalid>` stay bare. */
export function ago(timestamp: string | undefined, now: number): string {
  const a = age(timestamp, now);
  return a.startsWith('<') ? a : `${a} ago`;
}

/** kubectl describe's repeated-event form: `3m (x5 over 10m)`. */
export function ageWithCount(last: string | undefined, first: string | undefined, count: number, now: number): string {
  const a = age(last, now);
  return count > 1 ? `${a} (x${count} over ${age(first, now)})` : a;
}
