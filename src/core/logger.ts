/** The subset of pino's API shepherd uses; fastify's logger (pino) satisfies it, tests pass `silentLogger`. */
export interface LogFn {
  (msg: string): void;
  (obj: object, msg?: string): void;
}

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

const noop: LogFn = () => {};

export const silentLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
};

/** A logger that records lines, for tests that assert what was logged. */
export interface RecordedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  obj: Record<string, unknown>;
}

export function recordingLogger(
  lines: RecordedLine[] = [],
  bindings: Record<string, unknown> = {},
): Logger & { lines: RecordedLine[] } {
  const at =
    (level: RecordedLine['level']): LogFn =>
    (a: object | string, b?: string) => {
      if (typeof a === 'string') lines.push({ level, msg: a, obj: { ...bindings } });
      else lines.push({ level, msg: b ?? '', obj: { ...bindings, ...(a as Record<string, unknown>) } });
    };
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}
