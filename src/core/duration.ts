/**
 * Go duration syntax for every flag: `100ms`, `5s`, `1m30s`, `1h`. A bare number is refused (ambiguous unit).
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

export function parseDuration(input: string): number {
  const s = input.trim();
  if (s === '0') return 0;
  if (s === '') throw new Error('empty duration: use Go syntax such as 500ms, 5s or 1m30s');
  let i = 0;
  let total = 0;
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    sign = s[0] === '-' ? -1 : 1;
    i = 1;
  }
  if (i >= s.length) throw new Error(`invalid duration "${input}": use Go syntax such as 500ms, 5s or 1m30s`);
  while (i < s.length) {
    PART.lastIndex = i;
    const m = PART.exec(s);
    if (!m) throw new Error(`invalid duration "${input}": use Go syntax such as 500ms, 5s or 1m30s`);
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    i = PART.lastIndex;
  }
  return sign * total;
}

/** Formats ms in Go's style (`1m30s`, `500ms`, `2h0m0s` is shortened to `2h`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  if (rest < 1000) return `${neg ? '-' : ''}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const sec = rest / 1000;
  let out = '';
  if (h) out += `${h}h`;
  if (m) out += `${m}m`;
  if (sec) out += `${Number(sec.toFixed(3))}s`;
  return (neg ? '-' : '') + out;
}
