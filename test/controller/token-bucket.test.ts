import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../support/fake-clock.js';
import { neverRateLimiter, newRateLimiter, TokenBucket } from '../../src/controller/node-lifecycle/token-bucket.js';

/** Counts how many of `n` back-to-back tryAccept calls succeed. */
function acceptCount(limiter: { tryAccept(): boolean }, n: number): number {
  let accepted = 0;
  for (let i = 0; i < n; i++) if (limiter.tryAccept()) accepted++;
  return accepted;
}

describe('TokenBucket', () => {
  it('starts full: burst 1 grants exactly one token at t=0', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(0.1, 1, clock);
    assert.equal(bucket.tryAccept(), true);
    assert.equal(bucket.tryAccept(), false);
    assert.equal(bucket.qps(), 0.1);
  });

  it('refills the next token at exactly 1/qps, not a millisecond earlier', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(0.1, 1, clock);
    assert.equal(bucket.tryAccept(), true);
    await clock.advance(9_999);
    assert.equal(bucket.tryAccept(), false, 'one ms before 10s');
    await clock.advance(1);
    assert.equal(bucket.tryAccept(), true, 'at exactly 10s');
    assert.equal(bucket.tryAccept(), false);
  });

  it('a refused tryAccept does not reset the refill', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(1, 1, clock);
    assert.equal(bucket.tryAccept(), true);
    for (let t = 0; t < 9; t++) {
      await clock.advance(100);
      assert.equal(bucket.tryAccept(), false, `at ${(t + 1) * 100}ms`);
    }
    await clock.advance(100);
    assert.equal(bucket.tryAccept(), true, 'at 1000ms');
  });

  it('grants at a period that float math puts a hair under one token (qps 1000/99, 99 ms)', async () => {
    // (99 * (1000/99)) / 1000 is 0.9999999999999999 in doubles: without slack the token would come a tick late.
    const clock = new FakeClock();
    const bucket = new TokenBucket(1000 / 99, 1, clock);
    assert.equal(bucket.tryAccept(), true);
    await clock.advance(98);
    assert.equal(bucket.tryAccept(), false, 'at 98ms');
    await clock.advance(1);
    assert.equal(bucket.tryAccept(), true, 'at 99ms');
  });

  it('burst caps the refill before the grant, so a late probe loses the fraction (x/time/rate semantics)', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(3, 1, clock);
    assert.equal(bucket.tryAccept(), true);
    // A token every 333.33 ms, probed each ms: granted at 334, then 333.33 ms after that grant (668), …
    const granted: number[] = [];
    for (let ms = 1; ms <= 1002; ms++) {
      await clock.advance(1);
      if (bucket.tryAccept()) granted.push(ms);
    }
    assert.deepEqual(granted, [334, 668, 1002]);
  });

  it('does not accumulate above burst after a long idle', async () => {
    const clock = new FakeClock();
    const one = new TokenBucket(0.1, 1, clock);
    const three = new TokenBucket(0.1, 3, clock);
    assert.equal(acceptCount(one, 5), 1);
    assert.equal(acceptCount(three, 5), 3);
    await clock.advance(3_600_000);
    assert.equal(acceptCount(one, 5), 1);
    assert.equal(acceptCount(three, 5), 3);
    assert.equal(one.tokens(), 0);
  });

  it('uses monotonic time: a wall-clock jump neither refills nor drains', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(0.1, 1, clock);
    assert.equal(bucket.tryAccept(), true);
    clock.jumpWall(3_600_000);
    assert.equal(bucket.tryAccept(), false);
  });
});

describe('neverRateLimiter and newRateLimiter', () => {
  it('the never limiter accepts nothing and reports qps 0', () => {
    assert.equal(acceptCount(neverRateLimiter, 10), 0);
    assert.equal(neverRateLimiter.qps(), 0);
  });

  it('qps <= 0 gives a limiter that never accepts, even after a long wait', async () => {
    const clock = new FakeClock();
    for (const qps of [0, -1]) {
      const limiter = newRateLimiter(qps, 1, clock);
      assert.equal(limiter, neverRateLimiter);
      assert.equal(limiter.qps(), 0);
      await clock.advance(3_600_000);
      assert.equal(acceptCount(limiter, 3), 0);
    }
  });

  it('qps > 0 gives a full token bucket with that rate', async () => {
    const clock = new FakeClock();
    const limiter = newRateLimiter(0.01, 1, clock);
    assert.equal(limiter.qps(), 0.01);
    assert.equal(acceptCount(limiter, 3), 1);
    await clock.advance(99_999);
    assert.equal(limiter.tryAccept(), false);
    await clock.advance(1);
    assert.equal(limiter.tryAccept(), true);
  });
});
