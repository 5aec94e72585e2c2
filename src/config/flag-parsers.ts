import { isIPv4 } from 'node:net';
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../core/duration.js';

/** commander argParsers that fail with one clear sentence naming the flag's expected form. */
export function durationFlag(value: string): number {
  try {
    const ms = parseDuration(value);
    if (ms < 0) throw new Error('must not be negative');
    return ms;
  } catch (err) {
    throw new InvalidArgumentError(`${(err as Error).message}`);
  }
}

/** A number >= 0 (a rate where 0 means "never", as --node-eviction-rate). */
export function nonNegativeNumberFlag(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('must be a non-negative number');
  return n;
}

/** A number > 0. */
export function positiveNumberFlag(value: string): number {
  const n = nonNegativeNumberFlag(value);
  if (n === 0) throw new InvalidArgumentError('must be a positive number');
  return n;
}

export function fractionFlag(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 1)
    throw new InvalidArgumentError('must be a number in (0, 1]');
  return n;
}

const BYTE_UNITS: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A size in bytes: a whole number, optionally with a binary suffix (`512Ki`, `16Mi`, `1Gi`, also `16MiB`). */
export function byteSizeFlag(value: string): number {
  const m = /^\s*(\d+)\s*(Ki|Mi|Gi)?B?\s*$/.exec(value);
  if (!m) throw new InvalidArgumentError('must be a size in bytes such as 1048576, 512Ki, 16Mi or 1Gi');
  return Number(m[1]) * (BYTE_UNITS[m[2] ?? ''] as number);
}

/** `16777216` → `16Mi`, for --help defaults. */
export function formatBytes(bytes: number): string {
  for (const unit of ['Gi', 'Mi', 'Ki'] as const) {
    const size = BYTE_UNITS[unit] as number;
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

export function intFlag(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** `k=v,k2=v2` (as --labels and --feature-gates take). */
export function keyValueList(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new InvalidArgumentError(`"${part}" is not key=value`);
    out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

/** Repeatable, comma-separated address list (`--api-addr a:1 --api-addr b:2` or `--api-addr a:1,b:2`). */
export function collectAddresses(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

/** Splits `host:port` for listen addresses; `:9876` means all interfaces. */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('must be host:port, e.g. 127.0.0.1:9876 or 0.0.0.0:9876');
  const port = Number(m[3]);
  if (port > 65535) throw new InvalidArgumentError('port must be at most 65535');
  return { host: m[1] ?? (m[2] === '' ? '0.0.0.0' : (m[2] as string)), port };
}

/**
 * Whether a listen host is loopback only: `localhost`, `::1`, or an IPv4 address in 127.0.0.0/8. Anything else,
 * `127.evil.example` included, is a name that could resolve anywhere.
 */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  return isIPv4(host) && host.split('.')[0] === '127';
}

/**
 * `true` or `false`, for flags written `--flag=false` (kube-apiserver style). Their preset is the string 'true':
 * commander runs the preset of a bare `--flag` through this parser too.
 */
export function booleanFlag(value: string): boolean {
  if (value !== 'true' && value !== 'false') throw new InvalidArgumentError('must be true or false');
  return value === 'true';
}

/** `qps/burst` (`20/40`), or `qps` alone (burst = 2 × qps); `0` means unlimited. */
export function rateFlag(value: string): { qps: number; burst: number } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(\d+)\s*)?$/.exec(value);
  if (!m) throw new InvalidArgumentError('must be qps/burst, e.g. 20/40 (or 0 for unlimited)');
  const qps = Number(m[1]);
  const burst = m[2] === undefined ? Math.max(1, Math.ceil(qps * 2)) : Number(m[2]);
  if (qps > 0 && burst < 1) throw new InvalidArgumentError('burst must be at least 1 when qps is not 0');
  return { qps, burst };
}
