import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WatchLines } from '../../src/api/watch-lines.js';
import { EncodedJson } from '../../src/store/encoded-json.js';

/** Lines over a store-like source of recorded JSON texts. */
function lines(): { lines: WatchLines; encoded: EncodedJson } {
  const encoded = new EncodedJson();
  return { lines: new WatchLines({ encodedJson: (obj) => encoded.get(obj) }), encoded };
}

describe('watch event lines', () => {
  it('are JSON.stringify(event) plus a newline for every shape', () => {
    const { lines: w } = lines();
    const object = { metadata: { name: 'a', resourceVersion: '7' }, spec: { x: [1, 2] } };
    for (const ev of [
      { type: 'ADDED', object },
      { type: 'ERROR', object: { kind: 'Status', code: 410 } },
      { type: 'BOOKMARK', object: { kind: 'Lease', metadata: { resourceVersion: '9' } } },
      { type: 'MODIFIED', object, extra: true },
      { type: 7, object },
      'just a string',
    ]) {
      assert.equal(w.line(ev), `${JSON.stringify(ev)}\n`);
    }
  });

  it('use the JSON text the store recorded for a shared object instead of serialising it again', () => {
    const { lines: w, encoded } = lines();
    const object = { metadata: { name: 'b' } };
    // Different spacing than JSON.stringify would produce: proves these bytes are the ones sent.
    encoded.record(object, '{"metadata": {"name": "b"}}');
    assert.equal(w.line({ type: 'MODIFIED', object }), '{"type":"MODIFIED","object":{"metadata": {"name": "b"}}}\n');
  });

  it('are cached per shared object and event type', () => {
    const { lines: w } = lines();
    const object = { metadata: { name: 'c' } };
    const first = w.line({ type: 'MODIFIED', object });
    object.metadata.name = 'changed'; // a shared watch object is immutable; the cache shows it is not re-read
    assert.equal(w.line({ type: 'MODIFIED', object }), first);
    assert.equal(w.line({ type: 'DELETED', object }), `${JSON.stringify({ type: 'DELETED', object })}\n`);
  });

  it('are encoded to bytes once per shared change', () => {
    const { lines: w } = lines();
    const object = { metadata: { name: 'd' } };
    const a = w.chunk({ type: 'ADDED', object });
    const b = w.chunk({ type: 'ADDED', object });
    assert.equal(a, b, 'the same Buffer for every watcher');
    assert.equal(a.toString('utf8'), `${JSON.stringify({ type: 'ADDED', object })}\n`);
    assert.equal(w.chunk('x').toString('utf8'), '"x"\n');
  });

  it('belong to one server: another WatchLines keeps its own cache and asks its own store', () => {
    const object = { metadata: { name: 'e' } };
    const a = lines();
    a.encoded.record(object, '{"metadata": {"name": "e"}}');
    const b = lines();
    assert.equal(a.lines.line({ type: 'ADDED', object }), '{"type":"ADDED","object":{"metadata": {"name": "e"}}}\n');
    assert.equal(b.lines.line({ type: 'ADDED', object }), `${JSON.stringify({ type: 'ADDED', object })}\n`);
  });
});

describe('watch event lines of a batch', () => {
  it('are the lines of its events, in order, as one Buffer', () => {
    const { lines: w, encoded } = lines();
    const a = { metadata: { name: 'a' } };
    const b = { metadata: { name: 'b' } };
    encoded.record(b, '{"metadata": {"name": "b"}}');
    const batch = [{ type: 'ADDED', object: a }, { type: 'MODIFIED', object: b }, 'odd'];
    assert.equal(w.batchChunk(batch).toString('utf8'), batch.map((ev) => w.line(ev)).join(''));
    assert.equal(w.batchChunk([{ type: 'DELETED', object: a }]), w.chunk({ type: 'DELETED', object: a }));
  });

  it('are one Buffer for every watcher taking the same changes, and new bytes for other changes', () => {
    const { lines: w } = lines();
    const a = { metadata: { name: 'a' } };
    const b = { metadata: { name: 'b' } };
    // Each watcher has its own event objects around the shared changed objects.
    const first = w.batchChunk([
      { type: 'ADDED', object: a },
      { type: 'ADDED', object: b },
    ]);
    const second = w.batchChunk([
      { type: 'ADDED', object: a },
      { type: 'ADDED', object: b },
    ]);
    assert.equal(second, first, 'the same Buffer');
    const other = w.batchChunk([
      { type: 'ADDED', object: a },
      { type: 'MODIFIED', object: b },
    ]);
    assert.notEqual(other, first);
    assert.equal(
      other.toString('utf8'),
      w.line({ type: 'ADDED', object: a }) + w.line({ type: 'MODIFIED', object: b }),
    );
    const extra = [
      { type: 'ADDED', object: a, more: 1 },
      { type: 'ADDED', object: b },
    ];
    assert.equal(w.batchChunk(extra).toString('utf8'), extra.map((ev) => `${JSON.stringify(ev)}\n`).join(''));
    assert.equal(
      w.batchChunk([
        { type: 'ADDED', object: a },
        { type: 'ADDED', object: b },
      ]),
      first,
    );
  });
});

describe('the HTTP chunk frame of a watch write', () => {
  it('is the length in hex, CRLF, the bytes and CRLF', () => {
    const { lines: w } = lines();
    const data = Buffer.from('é'.repeat(20)); // 40 bytes, 20 characters: the length counts bytes
    assert.equal(w.frame(data).toString('utf8'), `28\r\n${'é'.repeat(20)}\r\n`);
  });

  it('is built once for the watchers sending the same Buffer, and again for other bytes', () => {
    const { lines: w } = lines();
    const a = Buffer.from('{"a":1}\n');
    const first = w.frame(a);
    assert.equal(w.frame(a), first, 'the same frame for the next watcher');
    assert.notEqual(w.frame(Buffer.from('{"a":1}\n')), first, 'equal bytes in another Buffer are framed anew');
    for (let i = 0; i < 8; i++) w.frame(Buffer.from(`{"n":${i}}\n`));
    assert.notEqual(w.frame(a), first, 'only the last few frames are kept');
    assert.equal(w.frame(a).toString('utf8'), first.toString('utf8'));
  });
});
