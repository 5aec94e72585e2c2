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
