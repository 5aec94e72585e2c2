import { silentLogger, type LogFn, type Logger } from '../core/logger.js';
import type { OutStream } from './cli-context.js';
import { describeError } from './error-message.js';

export interface WatchNotices extends Logger {
  /** A change came through: the next failure is news again. */
  reset(): void;
}

/**
 * Turns watchWithResume's warnings into one stderr line per outage (`sheepctl: watch interrupted …;
 * reconnecting`), so `-w` tells the user the server went away without flooding the table or stderr
 * with one line per backoff step.
 */
export function watchNotices(err: OutStream, server: string): WatchNotices {
  let notified = false;
  const warn: LogFn = (a: object | string, b?: string) => {
    if (notified) return;
    notified = true;
    const cause = typeof a === 'object' && a !== null ? (a as { err?: unknown }).err : undefined;
    const what = cause !== undefined ? describeError(cause, server) : (b ?? String(a));
    err.write(`sheepctl: watch interrupted (${what}); reconnecting\n`);
  };
  return {
    ...silentLogger,
    warn,
    child: () => silentLogger,
    reset: () => {
      notified = false;
    },
  };
}
