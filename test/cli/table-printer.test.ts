import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TablePrinter } from '../../src/cli/table-printer.js';

test('columns are padded to the widest cell plus 3 spaces; the last column is not padded', () => {
  const t = new TablePrinter(['NAME', 'STATUS', 'AGE']);
  const out = t.format([
    ['a', 'Ready', '5m'],
    ['longer-name', 'NotReady', '12d'],
  ]);
  assert.equal(
    out,
    ['NAME          STATUS     AGE', 'a             Ready      5m', 'longer-name   NotReady   12d', ''].join('\n'),
  );
});

test('empty cells print <none>', () => {
  const t = new TablePrinter(['NAME', 'TAINTS', 'AGE']);
  assert.equal(t.format([['n1', '', '1s']]), 'NAME   TAINTS   AGE\nn1     <none>   1s\n');
});

test('later batches never reprint the header and keep the remembered widths', () => {
  const t = new TablePrinter(['NAME', 'STATUS', 'AGE']);
  const first = t.format([['node-1', 'Ready', '5m']]);
  assert.equal(first, 'NAME     STATUS   AGE\nnode-1   Ready    5m\n');
  assert.equal(t.format([['n2', 'Ready', '1s']]), 'n2       Ready    1s\n');
  // A wider cell grows its column from then on; widths never shrink.
  assert.equal(t.format([['a-much-longer-node', 'Ready', '1s']]), 'a-much-longer-node   Ready    1s\n');
  assert.equal(t.format([['n3', 'Ready', '1s']]), 'n3                   Ready    1s\n');
});

test('no-headers and indent; styles apply to the text, padding is measured on plain text', () => {
  const t = new TablePrinter(['TYPE', 'REASON'], { noHeaders: true, indent: '  ' });
  const out = t.format([[{ text: 'Warning', style: (s) => `<${s}>` }, 'NodeNotReady']]);
  assert.equal(out, '  <Warning>   NodeNotReady\n');
  assert.equal(new TablePrinter(['A']).format([]), 'A\n');
});

test('reserve sizes columns for values that arrive later, so -w rows stay under their headers', () => {
  const t = new TablePrinter(['EVENT', 'NAME'], { reserve: ['MODIFIED'] });
  assert.equal(t.format([['ADDED', 'n1']]), 'EVENT      NAME\nADDED      n1\n');
  assert.equal(t.format([['MODIFIED', 'n1']]), 'MODIFIED   n1\n');
});
