import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PodSyncQueue, SYNC_CONCURRENCY, type Syncable } from '../../../src/agent/pods/pod-sync-queue.js';
import { FakeClock, flush } from '../../support/fake-clock.js';

class Item implements Syncable {
  flushes = 0;
  release: (() => void) | undefined;
  constructor(
    readonly track: { active: number; max: number },
    public result: 'done' | 'retry' = 'done',
    readonly hold = false,
  ) {}
  async flush(): Promise<'done' | 'retry'> {
    this.flushes++;
    this.track.active++;
    this.track.max = Math.max(this.track.max, this.track.active);
    if (this.hold) await new Promise<void>((r) => (this.release = r));
    this.track.active--;
    return this.result;
  }
}

describe('PodSyncQueue', () => {
  it('runs a few flushes at a time, in order; an item added again while queued is queued once', async () => {
    const clock = new FakeClock();
    const queue = new PodSyncQueue(clock, new AbortController().signal);
    const track = { active: 0, max: 0 };
    const items = Array.from({ length: 10 }, () => new Item(track, 'done', true));
    for (const i of items) queue.add(i);
    for (const i of items) queue.add(i);
    await flush();
    assert.equal(track.active, SYNC_CONCURRENCY);
    for (let round = 0; round < 5; round++) {
      for (const i of items) i.release?.();
      await flush();
    }
    assert.equal(track.max, SYNC_CONCURRENCY);
    // The first four were in flight when added again (a change during a write): they flush once more.
    assert.deepEqual(
      items.map((i) => i.flushes),
      [2, 2, 2, 2, 1, 1, 1, 1, 1, 1],
    );
  });

  it('retries failed items together on one timer, 200 ms doubling, and starts over after a success', async () => {
    const clock = new FakeClock();
    const queue = new PodSyncQueue(clock, new AbortController().signal);
    const track = { active: 0, max: 0 };
    const items = Array.from({ length: 20 }, () => new Item(track, 'retry'));
    for (const i of items) queue.add(i);
    await flush();
    assert.equal(clock.pendingSleepers, 1, 'one timer for all the failed items');
    await clock.advance(199);
    assert.equal(items[0]?.flushes, 1);
    await clock.advance(1);
    assert.equal(items[0]?.flushes, 2);
    await clock.advance(399);
    assert.equal(items[0]?.flushes, 2);
    await clock.advance(1);
    assert.equal(items[19]?.flushes, 3);
    for (const i of items) i.result = 'done';
    await clock.advance(800);
    assert.equal(queue.size, 0);
    assert.equal(clock.pendingSleepers, 0);
  });
});
