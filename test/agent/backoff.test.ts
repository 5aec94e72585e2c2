import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Backoff, retryAfterMs, retryForever } from '../../src/agent/backoff.js';
import { ForbiddenError, NotFoundError, ServiceUnavailableError, TooManyRequestsError } from '../../src/core/errors.js';
import { recordingLogger } from '../../src/core/logger.js';
import { FakeClock } from '../support/fake-clock.js';
import { unreachable } from './agent-fixtures.js';

describe('Backoff', () => {
  it('doubles before each wait from 200 ms and caps at 7 s (kubelet backoffEnsureLease)', () => {
    const b = new Backoff();
    const waits = Array.from({ length: 9 }, () => b.next());
    assert.deepEqual(waits, [200, 400, 800, 1600, 3200, 6400, 7000, 7000, 7000]);
  });

  it('never waits less than the Retry-After of a 429 or 503, and keeps doubling underneath', () => {
    const b = new Backoff();
    assert.equal(b.next(new TooManyRequestsError('slow down', 3)), 3000);
    assert.equal(b.next(new ServiceUnavailableError('overloaded', { retryAfterSeconds: 1 })), 1000);
    assert.equal(b.next(), 800);
    assert.equal(b.next(new TooManyRequestsError('slow down', 10)), 10_000);
  });

  it('reads retryAfterSeconds only from errors that carry it', () => {
    assert.equal(retryAfterMs(new TooManyRequestsError('x', 2)), 2000);
    assert.equal(retryAfterMs(new NotFoundError('nodes', 'n')), undefined);
    assert.equal(retryAfterMs(new Error('plain')), undefined);
  });
});

describe('retryForever', () => {
  it('retries with the backoff until success, logging the first failure and the recovery only', async () => {
    const clock = new FakeClock();
    const log = recordingLogger();
    const attempts: number[] = [];
    let failuresLeft = 6;
    const done = retryForever(
      async () => {
        attempts.push(clock.monotonic());
        if (failuresLeft-- > 0) throw unreachable();
        return 'ok';
      },
      { clock, log, signal: new AbortController().signal, what: 'registering node node-1' },
    );
    await clock.advance(60_000);
    assert.equal(await done, 'ok');
    const gaps = attempts.slice(1).map((t, i) => t - (attempts[i] as number));
    assert.deepEqual(gaps, [200, 400, 800, 1600, 3200, 6400]);
    assert.equal(log.lines.length, 2, JSON.stringify(log.lines));
    assert.equal(log.lines[0]?.level, 'warn');
    assert.match(log.lines[0]?.msg ?? '', /registering node node-1 failed: cannot reach the shepherd API/);
    assert.equal(log.lines[1]?.level, 'info');
    assert.match(log.lines[1]?.msg ?? '', /registering node node-1 recovered after 6 failed attempts/);
  });

  it('logs again when the kind of failure changes (the server is back but refuses us)', async () => {
    const clock = new FakeClock();
    const log = recordingLogger();
    const errors = [unreachable(), unreachable(), new ForbiddenError('node node-1 may not create node node-2')];
    const done = retryForever(
      async () => {
        const e = errors.shift();
        if (e) throw e;
        return 1;
      },
      { clock, log, signal: new AbortController().signal, what: 'x' },
    );
    await clock.advance(10_000);
    await done;
    assert.deepEqual(
      log.lines.map((l) => l.obj.reason ?? 'recovered'),
      ['ServiceUnavailable', 'Forbidden', 'recovered'],
    );
  });

  it('stops at a fatal error and when the signal aborts', async () => {
    const clock = new FakeClock();
    const fatal = new Error('duplicate');
    await assert.rejects(
      retryForever(async () => Promise.reject(fatal), {
        clock,
        log: recordingLogger(),
        signal: new AbortController().signal,
        what: 'x',
        isFatal: (e) => e === fatal,
      }),
      (e) => e === fatal,
    );
    const ac = new AbortController();
    const looping = retryForever(async () => Promise.reject(unreachable()), {
      clock,
      log: recordingLogger(),
      signal: ac.signal,
      what: 'x',
    });
    await clock.advance(1000);
    ac.abort();
    await assert.rejects(looping, { name: 'AbortError' });
  });
});
