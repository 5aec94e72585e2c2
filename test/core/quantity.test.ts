import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuantity } from '../../src/core/quantity.js';

describe('parseQuantity (Kubernetes resource quantities)', () => {
  const cases: Array<[string, number]> = [
    ['110', 110],
    ['2', 2],
    ['500m', 0.5],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['1Ki', 1024],
    ['24576Mi', 24576 * 2 ** 20],
    ['1G', 1e9],
    ['1E', 1e18],
    ['1e3', 1000],
    ['2E2', 200],
    ['5e-1', 0.5],
  ];
  for (const [q, want] of cases) it(`${q} → ${want}`, () => assert.equal(parseQuantity(q), want));

  for (const q of ['', 'two', '-1', '1 Gi', '1KB', '1ki', 'Mi', '1e', '1.2.3']) {
    it(`"${q}" is not a quantity`, () => assert.ok(Number.isNaN(parseQuantity(q))));
  }
});
