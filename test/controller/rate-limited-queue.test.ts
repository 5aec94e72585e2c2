import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../support/fake-clock.js';
import {
  RateLimitedTimedQueue,
  type TimedValue,
  type TryResult,
} from '../../src/controller/node-lifecycle/rate-limited-queue.js';
import { neverRateLimiter, TokenBucket } from '../../src/controller/node-lifecycle/token-bucket.js';

const DONE: TryResult = { done: true };

/** Runs one `try` whose callback marks every item done; returns the values processed, in order. */
async function tryAll(queue: RateLimitedTimedQueue): Promise<string[]> {
  const seen: string[] = [];
  await queue.try(async (v) => {
    seen.push(v.value);
    return DONE;
  });
  return seen;
}

/** A queue at 0.1/s, burst 1 (the controller's default per-zone limiter). */
function defaultQueue(clock: FakeClock): RateLimitedTimedQueue {
  return new RateLimitedTimedQueue(new TokenBucket(0.1, 1, clock), clock);
}

/** A queue whose limiter never runs out within a test, to look at timing and ordering alone. */
function unlimitedQueue(clock: FakeClock): RateLimitedTimedQueue {
  return new RateLimitedTimedQueue(new TokenBucket(1_000_000, 1_000_000, clock), clock);
}

describe('RateLimitedTimedQueue: set and heap', () => {
  it('keeps values unique: a second add is a no-op', () => {
    const clock = new FakeClock();
    const q = defaultQueue(clock);
    assert.equal(q.add('node-1', 'uid-1'), true);
    assert.equal(q.add('node-1', 'uid-other'), false);
    assert.equal(q.size(), 1);
    assert.equal(q.has('node-1'), true);
    assert.equal(q.head()?.uid, 'uid-1');
  });

  it('orders by processAt, which is the add time; same-time adds keep add order', async () => {
    const clock = new FakeClock();
    const q = unlimitedQueue(clock);
    q.add('node-c', 'c');
    await clock.advance(5);
    q.add('node-b', 'b');
    q.add('node-a', 'a');
    assert.deepEqual(q.values(), ['node-c', 'node-b', 'node-a']);
    const head = q.head();
    assert.deepEqual(head, { value: 'node-c', uid: 'c', addedAt: 0, processAt: 0 });
    assert.deepEqual(await tryAll(q), ['node-c', 'node-b', 'node-a']);
  });

  it('an item that is done leaves the heap but stays in the set until removed', async () => {
    const clock = new FakeClock();
    const q = unlimitedQueue(clock);
    q.add('node-1', 'u');
    assert.deepEqual(await tryAll(q), ['node-1']);
    assert.equal(q.size(), 0);
    assert.equal(q.has('node-1'), true);
    assert.equal(q.add('node-1', 'u'), false, 'add is a no-op while the value is in the set');
    assert.deepEqual(await tryAll(q), []);
    assert.equal(q.remove('node-1'), true);
    assert.equal(q.has('node-1'), false);
    assert.equal(q.add('node-1', 'u'), true);
    assert.deepEqual(await tryAll(q), ['node-1']);
  });

  it('remove clears both the set and the heap', async () => {
    const clock = new FakeClock();
    const q = unlimitedQueue(clock);
    q.add('node-1', 'u1');
    q.add('node-2', 'u2');
    assert.equal(q.remove('node-1'), true);
    assert.equal(q.remove('node-1'), false);
    assert.equal(q.has('node-1'), false);
    assert.deepEqual(q.values(), ['node-2']);
    assert.deepEqual(await tryAll(q), ['node-2']);
  });

  it('clear drops every item, queued or processed', async () => {
    const clock = new FakeClock();
    const q = unlimitedQueue(clock);
    q.add('node-1', 'u1');
    await tryAll(q);
    q.add('node-2', 'u2');
    q.clear();
    assert.equal(q.size(), 0);
    assert.equal(q.has('node-1'), false);
    assert.equal(q.add('node-1', 'u1'), true);
  });
});

describe('RateLimitedTimedQueue: try', () => {
  it('burst 1 at 0.1/s: of two due items one goes at once, the other exactly 10 s later', async () => {
    const clock = new FakeClock();
    const q = defaultQueue(clock);
    q.add('node-1', 'u1');
    q.add('node-2', 'u2');
    assert.deepEqual(await tryAll(q), ['node-1']);
    await clock.advance(9_999);
    assert.deepEqual(await tryAll(q), []);
    await clock.advance(1);
    assert.deepEqual(await tryAll(q), ['node-2']);
    assert.equal(q.size(), 0);
  });

  it('an item that is not done comes back after retryAfterMs (plus upstream 1 ns)', async () => {
    const clock = new FakeClock();
    const q = unlimitedQueue(clock);
    q.add('node-1', 'u1');
    const calls: number[] = [];
    const retryOnce = async (_v: TimedValue): Promise<TryResult> => {
      calls.push(clock.monotonic());
      return calls.length === 1 ? { done: false, retryAfterMs: 50 } : DONE;
    };
    await q.try(retryOnce);
    assert.deepEqual(calls, [0], 'tried once, then rescheduled, not retried in the same call');
    assert.equal(q.size(), 1);
    assert.ok(Math.abs((q.head()?.processAt ?? 0) - 50) < 1e-3, 'processAt is now + 50 ms');
    await clock.advance(50);
    await q.try(retryOnce);
    assert.deepEqual(calls, [0], 'not due at exactly +50 ms (the 1 ns)');
    await clock.advance(1);
    await q.try(retryOnce);
    assert.deepEqual(calls, [0, 51]);
    assert.equal(q.size(), 0);
    assert.equal(q.has('node-1'), true);
  });

  it('a retried item goes behind items due earlier', async () => {
    const clock = new FakeClock();
    const q = unlimitedQueue(clock);
    q.add('node-1', 'u1');
    await q.try(async () => ({ done: false, retryAfterMs: 100 }));
    await clock.advance(10);
    q.add('node-2', 'u2');
    assert.deepEqual(q.values(), ['node-2', 'node-1']);
  });

  // Upstream's quirk, kept: docs/node-lifecycle.md#q6-try-spends-a-token-first
  it('a token is spent even when the head is not due yet', async () => {
    const clock = new FakeClock();
    const limiter = new TokenBucket(1, 1, clock);
    const q = new RateLimitedTimedQueue(limiter, clock);
    q.add('node-1', 'u1');
    await q.try(async () => ({ done: false, retryAfterMs: 5_000 }));
    await clock.advance(1_000);
    assert.equal(limiter.tokens(), 1);
    let called = false;
    await q.try(async () => {
      called = true;
      return DONE;
    });
    assert.equal(called, false, 'head not due at 1s');
    assert.equal(limiter.tryAccept(), false, 'but the refilled token is gone');
  });

  it('does not reschedule an item removed while fn was running', async () => {
    const clock = new FakeClock();
    const q = unlimitedQueue(clock);
    q.add('node-1', 'u1');
    await q.try(async (v) => {
      q.remove(v.value);
      return { done: false, retryAfterMs: 50 };
    });
    assert.equal(q.size(), 0);
    assert.equal(q.has('node-1'), false);
  });

  it('a rejecting fn stops the pass, propagates, and leaves the item due at the head', async () => {
    const clock = new FakeClock();
    const q = unlimitedQueue(clock);
    q.add('node-1', 'u1');
    q.add('node-2', 'u2');
    await assert.rejects(
      q.try(async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.deepEqual(q.values(), ['node-1', 'node-2']);
    assert.deepEqual(await tryAll(q), ['node-1', 'node-2'], 'the next try works');
  });

  it('overlapping try calls run one after the other, never on the same head at once', async () => {
    const clock = new FakeClock();
    const q = unlimitedQueue(clock);
    q.add('node-1', 'u1');
    q.add('node-2', 'u2');
    let active = 0;
    let maxActive = 0;
    const seen: string[] = [];
    const slow = async (v: TimedValue): Promise<TryResult> => {
      active++;
      maxActive = Math.max(maxActive, active);
      seen.push(v.value);
      await clock.sleep(10);
      active--;
      return DONE;
    };
    const both = Promise.all([q.try(slow), q.try(slow)]);
    await clock.advance(100);
    await both;
    assert.equal(maxActive, 1);
    assert.deepEqual(seen, ['node-1', 'node-2']);
  });
});

describe('RateLimitedTimedQueue: swapLimiter', () => {
  it('from a full bucket to another rate: the new bucket is full', async () => {
    const clock = new FakeClock();
    const q = defaultQueue(clock);
    q.swapLimiter(0.01);
    assert.equal(q.limiterQps(), 0.01);
    q.add('node-1', 'u1');
    q.add('node-2', 'u2');
    assert.deepEqual(await tryAll(q), ['node-1']);
    await clock.advance(99_999);
    assert.deepEqual(await tryAll(q), []);
    await clock.advance(1);
    assert.deepEqual(await tryAll(q), ['node-2']);
  });

  it('from an empty bucket to another rate: drained, the first taint comes a full 1/qps later', async () => {
    const clock = new FakeClock();
    const q = defaultQueue(clock);
    q.add('node-1', 'u1');
    assert.deepEqual(await tryAll(q), ['node-1']);
    q.swapLimiter(0.01);
    q.add('node-2', 'u2');
    assert.deepEqual(await tryAll(q), []);
    await clock.advance(99_999);
    assert.deepEqual(await tryAll(q), []);
    await clock.advance(1);
    assert.deepEqual(await tryAll(q), ['node-2']);
  });

  it('from never (rate 0) to 0.1/s: drained, the first taint comes 10 s later', async () => {
    const clock = new FakeClock();
    const q = new RateLimitedTimedQueue(neverRateLimiter, clock);
    assert.equal(q.limiterQps(), 0);
    q.add('node-1', 'u1');
    await clock.advance(60_000);
    q.swapLimiter(0.1);
    assert.equal(q.limiterQps(), 0.1);
    assert.deepEqual(await tryAll(q), []);
    await clock.advance(9_999);
    assert.deepEqual(await tryAll(q), []);
    await clock.advance(1);
    assert.deepEqual(await tryAll(q), ['node-1']);
  });

  it('the same rate keeps the bucket and its refill progress', async () => {
    const clock = new FakeClock();
    const q = defaultQueue(clock);
    q.add('node-1', 'u1');
    q.add('node-2', 'u2');
    assert.deepEqual(await tryAll(q), ['node-1']);
    await clock.advance(5_000);
    q.swapLimiter(0.1);
    await clock.advance(5_000);
    // A replaced (drained) bucket would only refill at 15 s.
    assert.deepEqual(await tryAll(q), ['node-2']);
  });

  it('a rate <= 0 never accepts, however long the items wait', async () => {
    const clock = new FakeClock();
    for (const rate of [0, -1]) {
      const q = defaultQueue(clock);
      q.swapLimiter(rate);
      assert.equal(q.limiterQps(), 0);
      q.add('node-1', 'u1');
      await clock.advance(3_600_000);
      assert.deepEqual(await tryAll(q), []);
      assert.equal(q.size(), 1);
    }
  });

  it('a swap from 0 back to 0 keeps the never limiter; the full bucket is lost', async () => {
    const clock = new FakeClock();
    const q = defaultQueue(clock);
    q.swapLimiter(0);
    q.swapLimiter(0);
    q.swapLimiter(0.1);
    q.add('node-1', 'u1');
    assert.deepEqual(await tryAll(q), [], 'restored drained, not full');
  });
});
