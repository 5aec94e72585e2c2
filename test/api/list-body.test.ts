import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listBodyStream, listJsonChunks, type ListHead } from '../../src/api/list-body.js';

const head: ListHead = { apiVersion: 'v1', kind: 'NodeList', metadata: { resourceVersion: '42', continue: 'abc' } };
const item = (i: number) => ({ metadata: { name: `node-${i}` }, spec: { note: 'x'.repeat(1000) } });

describe('list answers in chunks', () => {
  it('concatenated, the chunks are the JSON of the list; none is much larger than 64 KiB', () => {
    const items = Array.from({ length: 2000 }, (_, i) => item(i));
    const known = new Map<object, string>([[items[1]!, JSON.stringify(items[1])]]);
    const chunks = [...listJsonChunks({ encodedJson: (o) => known.get(o) }, head, items)];
    assert.deepEqual(JSON.parse(chunks.join('')), { ...head, items });
    assert.equal(chunks.join(''), JSON.stringify({ ...head, items }));
    assert.ok(chunks.length > 20, `${chunks.length} chunks`);
    for (const c of chunks) assert.ok(c.length < 64 * 1024 + 2 * 1024, `a chunk of ${c.length} characters`);
  });

  it('uses the text the store kept for an object rather than serialising it again', () => {
    const a = item(1);
    const chunks = [...listJsonChunks({ encodedJson: (o) => (o === a ? '{"kept":true}' : undefined) }, head, [a])];
    assert.deepEqual(JSON.parse(chunks.join('')).items, [{ kept: true }]);
  });

  it('an empty list is a valid body', async () => {
    const text = [...listJsonChunks({ encodedJson: () => undefined }, head, [])].join('');
    assert.deepEqual(JSON.parse(text), { ...head, items: [] });
    let streamed = '';
    for await (const c of listBodyStream({ encodedJson: () => undefined }, head, [])) streamed += String(c);
    assert.equal(streamed, text);
  });
});
