import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitAtMost, type Clock } from '../../src/core/clock.js';
import { FakeClock } from '../support/fake-clock.js';

describe('waitAtMost', () => {
  it('ends at the event, cancelling its timer with a plain Error (no DOMException built per wake-up)', async () => {
    const fake = new FakeClock();
    const signals: AbortSignal[] = [];
    const clock: Clock = {
      now: () => fake.now(),
      monotonic: () => fake.monotonic(),
      sleep: (ms, signal) => {
        if (signal) signals.push(signal);
        return fake.sleep(ms, signal);
      },
    };
    await waitAtMost(clock, Promise.resolve(), 1_000);
    assert.equal(signals.length, 1);
    assert.equal(signals[0]?.aborted, true, 'the timer does not outlive the wait');
    assert.ok(!(signals[0]?.reason instanceof DOMException), 'abort() without a reason builds a DOMException');
  });

  it('ends at the timeout when the event does not come', async () => {
    const clock = new FakeClock();
    let done = false;
    const waiting = waitAtMost(clock, new Promise(() => {}), 1_000).then(() => (done = true));
    await clock.advance(999);
    assert.equal(done, false);
    await clock.advance(1);
    await waiting;
    assert.equal(done, true);
  });
});
