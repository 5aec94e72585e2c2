import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimitedTimedQueue, type TryResult } from '../../src/controller/node-lifecycle/rate-limited-queue.js';
import { earliestTaintTime, earliestTaintTimes } from '../../src/controller/node-lifecycle/taint-eta.js';
import { neverRateLimiter, TokenBucket } from '../../src/controller/node-lifecycle/token-bucket.js';
import { FakeClock } from '../support/fake-clock.js';

describe('earliestTaintTimes', () => {
  const cases: Array<{
    what: string;
    bucket: { tokens: number; qps: number; burst: number };
    now: number;
    due: number[];
    want: number[] | undefined;
  }> = [
    { what: 'empty queue', bucket: { tokens: 1, qps: 0.1, burst: 1 }, now: 0, due: [], want: [] },
    {
      what: 'full bucket: the head at once, then one per 10 s',
      bucket: { tokens: 1, qps: 0.1, burst: 1 },
      now: 1000,
      due: [0, 0, 500],
      want: [1000, 11_000, 21_000],
    },
    {
      what: 'drained bucket (a zone back from rate 0): the head waits a full period',
      bucket: { tokens: 0, qps: 0.1, burst: 1 },
      now: 0,
      due: [0, 0],
      want: [10_000, 20_000],
    },
    {
      what: 'a bucket 3 s after its last grant: the head in 7 s',
      bucket: { tokens: 0.3, qps: 0.1, burst: 1 },
      now: 50_000,
      due: [40_000, 45_000],
      want: [57_000, 67_000],
    },
    {
      what: 'a head not yet due spends the tokens granted before it (docs/node-lifecycle.md#q6-try-spends-a-token-first): it waits for the next refill',
      bucket: { tokens: 1, qps: 0.1, burst: 1 },
      now: 0,
      due: [50, 60],
      want: [10_000, 20_000],
    },
    {
      what: 'an item that comes due between two refills is taken at the first refill after it',
      bucket: { tokens: 1, qps: 1, burst: 1 },
      now: 0,
      due: [0, 2500],
      want: [0, 3000],
    },
    {
      what: 'a larger burst grants several at once',
      bucket: { tokens: 3, qps: 1, burst: 3 },
      now: 0,
      due: [0, 0, 0, 0],
      want: [0, 0, 0, 1000],
    },
    { what: 'rate 0: never', bucket: { tokens: 0, qps: 0, burst: 0 }, now: 0, due: [0], want: undefined },
    {
      what: 'an unlimited rate: when due',
      bucket: { tokens: 0, qps: Number.POSITIVE_INFINITY, burst: 1 },
      now: 10,
      due: [0, 30],
      want: [10, 30],
    },
  ];
  for (const c of cases) {
    it(c.what, () => {
      const got = earliestTaintTimes(c.bucket, c.now, c.due);
      if (c.want === undefined) assert.equal(got, undefined);
      else
        assert.deepEqual(
          got?.map((t) => Math.round(t * 1000) / 1000),
          c.want,
        );
    });
  }

  it('earliestTaintTime picks one item and refuses positions outside the queue', () => {
    const bucket = { tokens: 1, qps: 0.1, burst: 1 };
    assert.equal(earliestTaintTime(bucket, 0, [0, 0, 0], 2), 20_000);
    assert.equal(earliestTaintTime(bucket, 0, [0, 0, 0], 3), undefined);
    assert.equal(earliestTaintTime(bucket, 0, [0], -1), undefined);
  });
});

describe('earliestTaintTimes against the real queue and token bucket', () => {
  /** Drives `try` every 100 ms (the tainter period) and records when each value was taken. */
  async function drive(clock: FakeClock, q: RateLimitedTimedQueue, untilMs: number): Promise<Map<string, number>> {
    const taken = new Map<string, number>();
    while (clock.monotonic() < untilMs) {
      await q.try(async (v): Promise<TryResult> => {
        taken.set(v.value, clock.monotonic());
        return { done: true };
      });
      await clock.advance(100);
    }
    return taken;
  }

  for (const [what, prepare] of [
    ['a full bucket', async (): Promise<void> => undefined],
    [
      'a bucket spent 3.25 s ago',
      async (q: RateLimitedTimedQueue, clock: FakeClock): Promise<void> => {
        q.add('warm-up', 'w');
        await q.try(async () => ({ done: true }));
        q.remove('warm-up');
        await clock.advance(3250);
      },
    ],
    [
      'a drained bucket after a rate change',
      async (q: RateLimitedTimedQueue): Promise<void> => {
        q.swapLimiter(0);
        q.swapLimiter(0.2);
      },
    ],
  ] as const) {
    it(`every item is taken within one tainter tick of its ETA: ${what}`, async () => {
      const clock = new FakeClock();
      const q = new RateLimitedTimedQueue(new TokenBucket(0.1, 1, clock), clock);
      await prepare(q, clock);
      for (let i = 1; i <= 5; i++) q.add(`node-${i}`, `u${i}`);
      const { bucket, items } = q.schedule();
      const now = clock.monotonic();
      const etas = earliestTaintTimes(
        bucket,
        now,
        items.map((x) => x.processAt),
      ) as number[];
      assert.equal(etas.length, 5);
      const taken = await drive(clock, q, now + 120_000);
      items.forEach((item, i) => {
        const at = taken.get(item.value);
        assert.ok(at !== undefined, `${item.value} taken`);
        const eta = etas[i] as number;
        assert.ok(at >= eta - 1e-6 && at <= eta + 100, `${item.value}: taken at ${at}, ETA ${eta}`);
      });
    });
  }

  it('a zone at rate 0 gives no ETA, and its queue is indeed never taken', async () => {
    const clock = new FakeClock();
    const q = new RateLimitedTimedQueue(neverRateLimiter, clock);
    q.add('node-1', 'u1');
    const { bucket, items } = q.schedule();
    assert.equal(
      earliestTaintTimes(
        bucket,
        clock.monotonic(),
        items.map((x) => x.processAt),
      ),
      undefined,
    );
    assert.equal((await drive(clock, q, 30_000)).size, 0);
  });
});
