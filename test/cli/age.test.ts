import assert from 'node:assert/strict';
import { test } from 'node:test';
import { age, ageWithCount, ago, humanDuration } from '../../src/cli/age.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

test('humanDuration follows apimachinery duration.HumanDuration at every boundary', () => {
  const table: Array<[number, string]> = [
    [-2 * S, '<invalid>'],
    [-1999, '0s'], // truncates to -1s: tolerated skew
    [-1 * S, '0s'],
    [0, '0s'],
    [999, '0s'],
    [45 * S, '45s'],
    [119 * S, '119s'],
    [120 * S, '2m'],
    [3 * M + 20 * S, '3m20s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M, '10m'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [5 * H, '5h'],
    [5 * H + 7 * M, '5h7m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H, '8h'],
    [47 * H + 59 * M, '47h'],
    [48 * H, '2d'],
    [2 * D + 4 * H, '2d4h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D, '8d'],
    [12 * D, '12d'],
    [729 * D, '729d'],
    [2 * Y, '2y'],
    [2 * Y + 30 * D, '2y30d'],
    [7 * Y + 364 * D, '7y364d'],
    [8 * Y, '8y'],
    [20 * Y + 100 * D, '20y'],
  ];
  for (const [ms, want] of table) assert.equal(humanDuration(ms), want, `humanDuration(${ms})`);
});

test('age, ago and ageWithCount read RFC 3339 timestamps against now', () => {
  const now = Date.parse('2026-11-29T12:00:00.000Z');
  assert.equal(age('2026-11-29T11:59:15.000Z', now), '45s');
  assert.equal(age(undefined, now), '<unknown>');
  assert.equal(age('not a time', now), '<unknown>');
  assert.equal(ago('2026-11-29T11:59:57.000Z', now), '3s ago');
  assert.equal(ago(undefined, now), '<unknown>');
  assert.equal(ago('2026-11-29T12:00:05.000Z', now), '<invalid>');
  assert.equal(ageWithCount('2026-11-29T11:57:00.000Z', '2026-11-29T11:50:00.000Z', 5, now), '3m (x5 over 10m)');
  assert.equal(ageWithCount('2026-11-29T11:57:00.000Z', '2026-11-29T11:57:00.000Z', 1, now), '3m');
});
