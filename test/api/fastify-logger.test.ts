import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { lazyChildLogger } from '../../src/api/fastify-logger.js';

function recordedPino(level: string): { logger: FastifyBaseLogger; lines: () => Record<string, unknown>[] } {
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  const logger = pino({ level, redact: ['req.headers.authorization'] }, out) as unknown as FastifyBaseLogger;
  return {
    logger,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Counts the children made of `logger` (and still forwards to pino's own child()). */
function countChildren(logger: FastifyBaseLogger): { count: () => number } {
  let n = 0;
  const child = logger.child.bind(logger);
  logger.child = (bindings, options) => {
    n++;
    return child(bindings, options);
  };
  return { count: () => n };
}

/** Serves one request whose handler logs with `handler`; returns the child loggers made while it was served. */
async function serve(logger: FastifyBaseLogger, handler: (log: FastifyBaseLogger) => void): Promise<number> {
  const app = Fastify({ loggerInstance: logger, childLoggerFactory: lazyChildLogger, disableRequestLogging: true });
  app.get('/', async (request) => {
    handler(request.log);
    return { ok: true };
  });
  await app.ready();
  const children = countChildren(logger);
  const res = await app.inject({ method: 'GET', url: '/' });
  assert.equal(res.statusCode, 200);
  await app.close();
  return children.count();
}

describe('request loggers made on first use', () => {
  it('a request that logs nothing, or only below the level, makes no child logger', async () => {
    const { logger } = recordedPino('info');
    assert.equal(await serve(logger, (log) => log.debug('not at info level')), 0);
  });

  it('a line at an enabled level makes the child once and carries the request id', async () => {
    const { logger, lines } = recordedPino('info');
    const made = await serve(logger, (log) => {
      log.info({ n: 1 }, 'first');
      log.warn('second');
    });
    assert.equal(made, 1);
    const logged = lines().filter((l) => l['msg'] === 'first' || l['msg'] === 'second');
    assert.equal(logged.length, 2);
    for (const l of logged) assert.match(String(l['reqId']), /^req-/);
    assert.equal(logged[0]?.['n'], 1);
  });

  it('a logger without isLevelEnabled gets its child on the first line, whatever the level', () => {
    const made: unknown[] = [];
    const calls: string[] = [];
    const plain = {
      level: 'info',
      child(bindings: unknown) {
        made.push(bindings);
        return { ...plain, debug: (msg: string) => calls.push(msg) };
      },
    } as unknown as FastifyBaseLogger;
    const log = lazyChildLogger(plain, { reqId: 'r1' }, {});
    assert.equal(made.length, 0);
    log.debug('hello');
    log.debug('again');
    assert.deepEqual(made, [{ reqId: 'r1' }]);
    assert.deepEqual(calls, ['hello', 'again']);
  });

  it('route options (a level of its own) make the child at once', () => {
    const { logger } = recordedPino('info');
    const children = countChildren(logger);
    const log = lazyChildLogger(logger, { reqId: 'r2' }, { level: 'debug' });
    assert.equal(children.count(), 1);
    assert.equal(log.level, 'debug');
  });
});
