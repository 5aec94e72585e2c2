import type { BucketState } from './token-bucket.js';

/** Slack for float rounding when whole refill periods are counted (see TOKEN_EPSILON in token-bucket.ts). */
const PERIOD_EPSILON = 1e-9;

/**
 * When the NoExecute tainter can take each item of a zone queue at the earliest, in queue order, from the zone
 * limiter's state now (docs/node-lifecycle.md#zone-queues): every item costs one token, granted in queue order,
 * and no item is taken before its `processAt`. A token granted while the head is not yet due is spent on it anyway
 * (`Try` takes the token first: docs/node-lifecycle.md#q6-try-spends-a-token-first), so a head that comes due between
 * two refills waits for the next one. Times are monotonic ms, like `now` and `processAts`.
 *
 * Pure and exact for the controller's burst of 1 (a bucket of burst > 1 is assumed to drain on a head that is not
 * due). It ignores the tainter's own tick (it runs every `tainterPeriodMs`, so an item is taken up to one tick after
 * its time) and the write's latency. Undefined when the limiter never grants (rate 0: tainting is stopped).
 */
export function earliestTaintTimes(
  bucket: BucketState,
  now: number,
  processAts: readonly number[],
): number[] | undefined {
  if (processAts.length === 0) return [];
  if (!(bucket.qps > 0)) return undefined;
  if (bucket.qps === Number.POSITIVE_INFINITY) return processAts.map((due) => Math.max(now, due));
  const period = 1000 / bucket.qps;
  const out: number[] = [];
  let t = now;
  let tokens = Math.min(bucket.burst, Math.max(0, bucket.tokens));
  for (const due of processAts) {
    let grant = tokens + PERIOD_EPSILON >= 1 ? t : t + (1 - tokens) * period;
    if (grant < due) {
      // Tokens granted before the item is due go to waste, one per refill, until a grant lands at or after `due`.
      grant += Math.ceil((due - grant) / period - PERIOD_EPSILON) * period;
      tokens = 1;
    } else {
      tokens = Math.min(bucket.burst, tokens + (grant - t) / period);
    }
    out.push(grant);
    tokens = Math.max(0, tokens - 1);
    t = grant;
  }
  return out;
}

/** The ETA of the item at 0-based `index` only; undefined when it never comes (rate 0) or there is no such item. */
export function earliestTaintTime(
  bucket: BucketState,
  now: number,
  processAts: readonly number[],
  index: number,
): number | undefined {
  if (index < 0 || index >= processAts.length) return undefined;
  return earliestTaintTimes(bucket, now, processAts.slice(0, index + 1))?.[index];
}
