import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WatchLines } from '../../src/api/ndjson-watch.js';
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
