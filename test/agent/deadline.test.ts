import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withDeadline } from '../../src/agent/deadline.js';
import { FakeClock } from '../support/fake-clock.js';

describe('withDeadline', () => {
  it('returns the answer and leaves no timer behind', async () => {
    const clock = new FakeClock();
    assert.equal(await withDeadline(clock, new AbortController().signal, 10_000, 'lease update', async () => 42), 42);
    assert.equal(clock.pendingSleepers, 0);
  });

  it('fails a hung call with a Timeout error after the deadline, even if the call ignores its signal', async () => {
    const clock = new FakeClock();
    let seen: AbortSignal | undefined;
    const settled = withDeadline(clock, new AbortController().signal, 10_000, 'lease update', (s) => {
      seen = s;
      return new Promise<never>(() => {});
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await clock.advance(9_999);
    assert.equal(seen?.aborted, false);
    await clock.advance(1);
    const err = (await settled) as { reason?: string; message?: string };
    assert.equal(err.reason, 'Timeout');
    assert.match(err.message ?? '', /lease update got no answer within 10000ms/);
    assert.equal(seen?.aborted, true);
  });

  it('aborts the call when the parent signal aborts (shutdown)', async () => {
    const clock = new FakeClock();
    const parent = new AbortController();
    const settled = withDeadline(clock, parent.signal, 10_000, 'x', () => new Promise<never>(() => {})).then(
      () => undefined,
      (e: unknown) => e,
    );
    parent.abort();
    assert.equal(((await settled) as Error).name, 'AbortError');
    assert.equal(clock.pendingSleepers, 0);
  });
});
