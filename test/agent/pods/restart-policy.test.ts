import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CRASH_LOOP_BACKOFF, RestartBackoff, shouldRestart } from '../../../src/agent/pods/restart-policy.js';

describe('shouldRestart', () => {
  const table: Array<['Always' | 'OnFailure' | 'Never' | undefined, number, boolean]> = [
    ['Always', 0, true],
    ['Always', 1, true],
    [undefined, 0, true],
    ['OnFailure', 0, false],
    ['OnFailure', 137, true],
    ['Never', 0, false],
    ['Never', 1, false],
  ];
  for (const [policy, exitCode, expected] of table) {
    it(`${policy ?? '(default)'} after exit ${exitCode}: ${expected}`, () =>
      assert.equal(shouldRestart(policy, exitCode), expected));
  }
});

describe('RestartBackoff', () => {
  it('doubles from 10 s to 5 min, and starts over after a run of twice the cap', () => {
    const b = new RestartBackoff(CRASH_LOOP_BACKOFF);
    const delays = Array.from({ length: 7 }, () => b.next(1_000));
    assert.deepEqual(delays, [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    assert.equal(b.next(599_999), 300_000);
    assert.equal(b.next(600_000), 10_000);
  });
});
