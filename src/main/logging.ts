import { Writable } from 'node:stream';
import { pino, type Logger as PinoLogger } from 'pino';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** Renders pino's JSON lines as `time LEVEL message key=value ...` for humans (`--log-format text`). */
export function textLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString() : '';
  const level = (LEVELS[rec.level as number] ?? String(rec.level)).padEnd(5);
  const extras = Object.entries(rec)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`);
  return [time, level, rec.msg ?? '', ...extras].filter((s) => s !== '').join(' ');
}

/**
 * One pino logger per process. Tokens never reach a log line: the Authorization header and any `token` field
 * are redacted wherever they appear.
 */
export function createLogger(options: {
  level: string;
  format: 'json' | 'text';
  destination?: NodeJS.WritableStream;
}): PinoLogger {
  const out = options.destination ?? process.stderr;
  const redact = {
    paths: [
      'req.headers.authorization',
      'headers.authorization',
      '*.headers.authorization',
      'err.config.headers.authorization',
      'token',
      '*.token',
    ],
    censor: '[redacted]',
  };
  if (options.format === 'json')
    return pino({ level: options.level, redact, base: { pid: process.pid } }, out as never);
  let pending = '';
  const dest = new Writable({
    write(chunk: Buffer, _enc, cb) {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        out.write(`${textLine(pending.slice(0, nl))}\n`);
        pending = pending.slice(nl + 1);
      }
      cb();
    },
  });
  return pino({ level: options.level, redact, base: null }, dest);
}
