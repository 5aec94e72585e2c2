import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDuration, parseDuration } from '../../src/core/duration.js';

test('parseDuration accepts Go syntax', () => {
  const cases: [string, number][] = [
    ['100ms', 100],
    ['5s', 5000],
    ['50s', 50_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['1.5s', 1500],
    ['2h45m', 9_900_000],
    ['0', 0],
    ['-5s', -5000],
  ];
  for (const [input, ms] of cases) assert.equal(parseDuration(input), ms, input);
});

test('parseDuration refuses ambiguous or malformed input with a hint', () => {
  for (const bad of ['10', 'bogus', '5 s', '', 's', '1m30', '-']) {
    assert.throws(() => parseDuration(bad), /Go syntax/, bad);
  }
});

test('formatDuration round-trips through parseDuration', () => {
  for (const ms of [0, 1, 999, 1000, 1500, 90_000, 3_600_000, 3_723_000]) {
    assert.equal(parseDuration(formatDuration(ms)), ms);
  }
  assert.equal(formatDuration(90_000), '1m30s');
  assert.equal(formatDuration(200), '200ms');
});
