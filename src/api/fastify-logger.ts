import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from '../core/logger.js';

/**
 * fastify wants a pino-shaped logger (fatal, trace, level, silent); pino itself passes through untouched, and
 * the project's smaller Logger is widened so tests can hand in recordingLogger().
 */
export function toFastifyLogger(log: Logger): FastifyBaseLogger {
  const maybePino = log as Partial<FastifyBaseLogger>;
  if (
    typeof maybePino.fatal === 'function' &&
    typeof maybePino.trace === 'function' &&
    typeof maybePino.level === 'string'
  ) {
    return log as unknown as FastifyBaseLogger;
  }
  const adapted = {
    level: 'info',
    fatal: log.error.bind(log),
    error: log.error.bind(log),
    warn: log.warn.bind(log),
    info: log.info.bind(log),
    debug: log.debug.bind(log),
    trace: log.debug.bind(log),
    silent: () => {},
    child: (bindings: Record<string, unknown>) => toFastifyLogger(log.child(bindings)),
  };
  return adapted as unknown as FastifyBaseLogger;
}

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArgs = Parameters<FastifyBaseLogger['info']>;

/**
 * A request's logger, made only when the request logs. fastify builds one per request, and pino's child() sends
 * its bindings through the redactor, which parses the redact paths every time: about 1.2 KiB of garbage and a
 * microsecond per lease renewal, for a logger that almost no request uses (request logging is off; errors and
 * debug lines are the exceptions). A level that is off never makes the child.
 */
class LazyRequestLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  fatal(...args: LogArgs): void {
    this.#log('fatal', args);
  }
  error(...args: LogArgs): void {
    this.#log('error', args);
  }
  warn(...args: LogArgs): void {
    this.#log('warn', args);
  }
  info(...args: LogArgs): void {
    this.#log('info', args);
  }
  debug(...args: LogArgs): void {
    this.#log('debug', args);
  }
  trace(...args: LogArgs): void {
    this.#log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    return isLevelEnabled(this.#child ?? this.#parent, level);
  }

  #log(level: Level, args: LogArgs): void {
    if (!this.isLevelEnabled(level)) return;
    this.#real()[level](...args);
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }
}

/** fastify's `childLoggerFactory`: the request's logger is made on its first enabled line (LazyRequestLogger). */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // A route's own level or serializers: the child differs from its parent from the start. (A for-in, not
  // Object.keys: this runs for every request, and fastify's options are nearly always `{}`.)
  for (const _ in options) return logger.child(bindings, options);
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}

/** pino's isLevelEnabled where the logger has one; any other logger counts as logging everything. */
export function isLevelEnabled(logger: FastifyBaseLogger, level: string): boolean {
  const l = logger as Partial<{ isLevelEnabled(level: string): boolean }>;
  return typeof l.isLevelEnabled !== 'function' || l.isLevelEnabled(level);
}
