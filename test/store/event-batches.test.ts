import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchedIterable, eventBatches, hasBatches } from '../../src/store/event-batches.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('event batches', () => {
  it('a batched stream iterates its events one by one, in order, and hands out its batches whole', async () => {
    const stream = batchedIterable(async function* () {
      yield [1, 2, 3];
      yield [4];
      yield [5, 6];
    });
    assert.ok(hasBatches(stream));
    assert.deepEqual(await collect(stream), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(await collect(eventBatches(stream)), [[1, 2, 3], [4], [5, 6]]);
  });

  it('any other stream is handed out one event per batch', async () => {
    async function* plain(): AsyncGenerator<string> {
      yield 'a';
      yield 'b';
    }
    assert.equal(hasBatches(plain()), false);
    assert.deepEqual(await collect(eventBatches(plain())), [['a'], ['b']]);
  });

  it('starts nothing before the first pull, and a consumer that stops early ends the source', async () => {
    let started = 0;
    let ended = 0;
    const stream = batchedIterable(async function* () {
      started++;
      try {
        for (let i = 0; ; i += 2) yield [i, i + 1];
      } finally {
        ended++;
      }
    });
    assert.equal(started, 0);
    for await (const ev of stream) if (ev === 2) break;
    assert.deepEqual([started, ended], [1, 1]);
    for await (const batch of eventBatches(stream)) if (batch[0] === 4) break;
    assert.deepEqual([started, ended], [2, 2]);
  });
});
