import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventChunk, eventLine } from '../../src/api/watch-stream.js';
import { rememberJson } from '../../src/store/encoded-json.js';

describe('watch event lines', () => {
  it('are JSON.stringify(event) plus a newline for every shape', () => {
    const object = { metadata: { name: 'a', resourceVersion: '7' }, spec: { x: [1, 2] } };
    for (const ev of [
      { type: 'ADDED', object },
      { type: 'ERROR', object: { kind: 'Status', code: 410 } },
      { type: 'BOOKMARK', object: { kind: 'Lease', metadata: { resourceVersion: '9' } } },
      { type: 'MODIFIED', object, extra: true },
      { type: 7, object },
      'just a string',
    ]) {
      assert.equal(eventLine(ev), `${JSON.stringify(ev)}\n`);
    }
  });

  it('use the JSON text the store recorded for a shared object instead of serialising it again', () => {
    const object = { metadata: { name: 'b' } };
    // Different spacing than JSON.stringify would produce: proves these bytes are the ones sent.
    rememberJson(object, '{"metadata": {"name": "b"}}');
    assert.equal(eventLine({ type: 'MODIFIED', object }), '{"type":"MODIFIED","object":{"metadata": {"name": "b"}}}\n');
  });

  it('are cached per shared object and event type', () => {
    const object = { metadata: { name: 'c' } };
    const first = eventLine({ type: 'MODIFIED', object });
    object.metadata.name = 'changed'; // a shared watch object is immutable; the cache shows it is not re-read
    assert.equal(eventLine({ type: 'MODIFIED', object }), first);
    assert.equal(eventLine({ type: 'DELETED', object }), `${JSON.stringify({ type: 'DELETED', object })}\n`);
  });

  it('are encoded to bytes once per shared change', () => {
    const object = { metadata: { name: 'd' } };
    const a = eventChunk({ type: 'ADDED', object });
    const b = eventChunk({ type: 'ADDED', object });
    assert.equal(a, b, 'the same Buffer for every watcher');
    assert.equal(a.toString('utf8'), `${JSON.stringify({ type: 'ADDED', object })}\n`);
    assert.equal(eventChunk('x').toString('utf8'), '"x"\n');
  });
});
