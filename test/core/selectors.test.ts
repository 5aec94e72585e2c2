import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BadRequestError } from '../../src/core/errors.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../src/core/selectors.js';

test('label selectors: equality, inequality, sets and existence', () => {
  const labels = { zone: 'a', tier: 'db' };
  const cases: [string, boolean][] = [
    ['', true],
    ['zone=a', true],
    ['zone==a', true],
    ['zone=b', false],
    ['zone!=b', true],
    ['zone!=a', false],
    ['zone=a,tier=db', true],
    ['zone=a,tier=web', false],
    ['zone in (a,b)', true],
    ['zone notin (a,b)', false],
    ['tier', true],
    ['!tier', false],
    ['missing!=x', true],
    ['missing', false],
  ];
  for (const [sel, want] of cases) assert.equal(matchesLabels(parseLabelSelector(sel), labels), want, sel);
});

test('malformed label selectors are a BadRequest naming the part', () => {
  assert.throws(
    () => parseLabelSelector('a=b=c'),
    (e: unknown) => e instanceof BadRequestError && /a=b=c/.test(e.message),
  );
});

test('field selectors match dotted paths', () => {
  const ev = { involvedObject: { name: 'node-1' }, reason: 'NodeNotReady', type: 'Warning' };
  assert.equal(matchesFields(parseFieldSelector('involvedObject.name=node-1,type=Warning'), ev), true);
  assert.equal(matchesFields(parseFieldSelector('reason!=NodeNotReady'), ev), false);
  assert.equal(matchesFields(parseFieldSelector('involvedObject.name=node-2'), ev), false);
  assert.throws(() => parseFieldSelector('nonsense'), BadRequestError);
});
