import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LatencyHistogram } from '../../src/fleet/latency-histogram.js';

describe('LatencyHistogram', () => {
  it('is empty at first', () => {
    const h = new LatencyHistogram();
    assert.equal(h.quantile(0.99), 0);
    assert.equal(h.count, 0);
  });

  it('reports quantiles never below the truth and at most 2% above it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.02, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 500 }),
        fc.constantFrom(0.5, 0.9, 0.99, 1),
        (xs, q) => {
          const h = new LatencyHistogram();
          for (const x of xs) h.record(x);
          const sorted = [...xs].sort((a, b) => a - b);
          const truth = sorted[Math.ceil(q * sorted.length) - 1] as number;
          const got = h.quantile(q);
          assert.ok(got >= truth - 1e-9, `q${q}: ${got} < ${truth}`);
          assert.ok(got <= truth * 1.0201, `q${q}: ${got} > ${truth} + 2%`);
        },
      ),
      { seed: 8, numRuns: 200 },
    );
  });

  it('keeps the maximum and resets', () => {
    const a = new LatencyHistogram();
    for (let i = 1; i <= 99; i++) a.record(1);
    a.record(500);
    assert.equal(a.count, 100);
    assert.ok(a.quantile(0.99) <= 1.03);
    assert.ok(a.quantile(1) >= 500);
    assert.equal(a.max, 500);
    a.reset();
    assert.equal(a.count, 0);
    assert.equal(a.quantile(0.5), 0);
  });
});
