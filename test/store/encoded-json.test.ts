import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EncodedJson } from '../../src/store/encoded-json.js';

// Texts here are deliberately not JSON.stringify(obj), so a test can tell a kept text from one built anew.
describe('EncodedJson', () => {
  it('keeps the newest texts only: an older object loses its text and serialises normally', () => {
    const encoded = new EncodedJson(4);
    const objs = Array.from({ length: 6 }, (_, i) => ({ i }));
    objs.forEach((o, i) => encoded.record(o, `text-${i}`));
    assert.deepEqual(
      objs.map((o) => encoded.get(o)),
      [undefined, undefined, 'text-2', 'text-3', 'text-4', 'text-5'],
    );
    // A text dropped is gone for good, and leaves nothing a copy or a comparison would see.
    assert.deepEqual(objs[0], { i: 0 });
    assert.deepEqual(Object.keys(objs[0] as object), ['i']);
    assert.deepEqual({ ...objs[0] }, { i: 0 });
    assert.equal(encoded.get({ ...objs[5] }), undefined, 'a copy has no text');
  });

  it('builds a lazily recorded text on the first request, then keeps it like a recorded one', () => {
    const encoded = new EncodedJson(2);
    const lazy = { a: 1 };
    encoded.recordLazily(lazy);
    assert.equal(encoded.get(lazy), '{"a":1}');
    encoded.record({ b: 1 }, 'kept');
    assert.equal(encoded.get(lazy), '{"a":1}', 'still one of the newest two');
    encoded.record({ c: 1 }, 'kept');
    assert.equal(encoded.get(lazy), undefined, 'pushed out by two newer texts');
  });

  it('keeps no object alive: an object dropped by its holders is collected while its text is still in the ring', async () => {
    // The documented way to reach the collector from a test without starting node with --expose-gc.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const encoded = new EncodedJson(8);
    const ref = ((): WeakRef<object> => {
      const obj = { a: 1 };
      encoded.record(obj, '{"a":1}');
      return new WeakRef(obj);
    })();
    // A WeakRef holds its target until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    assert.equal(ref.deref(), undefined);
  });

  it('gives an object recorded twice its newest text, and a recorded text back unchanged to every reader', () => {
    const encoded = new EncodedJson(3);
    const obj = { a: 1 };
    encoded.record(obj, 'first');
    encoded.record(obj, 'second');
    assert.equal(encoded.get(obj), 'second');
    // The first text still fills a slot, so pushing it out takes nothing from the object.
    encoded.record({}, 'x');
    encoded.record({}, 'y');
    assert.equal(encoded.get(obj), 'second');
    encoded.record({}, 'z');
    assert.equal(encoded.get(obj), undefined, 'pushed out by three newer texts');
  });

  it('answers undefined for anything it never recorded', () => {
    const encoded = new EncodedJson();
    for (const v of [undefined, null, 1, 'x', { a: 1 }, [1]]) assert.equal(encoded.get(v), undefined);
  });
});
