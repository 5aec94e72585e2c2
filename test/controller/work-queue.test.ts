import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay, runWorkers, WorkQueue } from '../../src/controller/work-queue.js';
import { FakeClock, flush } from '../support/fake-clock.js';

describe('WorkQueue', () => {
  it('hands out keys in order, once while waiting, and never one that is being processed', async () => {
    const q = new WorkQueue<string>(new FakeClock());
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.length, 2);
    const first = await q.get();
    assert.equal(first, 'a');
    q.add('a');
    assert.equal(await q.get(), 'b');
    assert.equal(q.length, 0, 'a is being processed: its new add waits for done');
    q.done('a');
    assert.equal(await q.get(), 'a');
  });

  it('addAfter waits on the clock; the earliest of two delays wins', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>(clock);
    q.addAfter('k', 1_000);
    q.addAfter('k', 300);
    q.addAfter('k', 5_000);
    await clock.advance(299);
    assert.equal(q.length, 0);
    await clock.advance(1);
    assert.equal(q.length, 1);
    await q.get();
    q.done('k');
    await clock.advance(10_000);
    assert.equal(q.length, 0, 'the later delays were dropped');
  });

  it('addRateLimited doubles per key until forget', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 20].map((f) => backoffDelay({ baseMs: 5, maxMs: 1_000 }, f)),
      [5, 10, 20, 40, 1_000],
    );
  });

  it('many idle workers of several controllers on one signal raise no listener-leak warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): number => warnings.push(w);
    process.on('warning', onWarning);
    const stop = new AbortController();
    const clock = new FakeClock();
    const done = [0, 1, 2].map(() =>
      runWorkers(
        new WorkQueue<string>(clock),
        8,
        async () => {},
        () => {},
        stop.signal,
      ),
    );
    await flush();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    stop.abort();
    await Promise.all(done);
    process.off('warning', onWarning);
    assert.deepEqual(
      warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
      [],
    );
  });

  it('runWorkers retries a failing key with backoff and forgets it once it succeeds', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>(clock, { baseMs: 100, maxMs: 1_000 });
    const ac = new AbortController();
    const tries: number[] = [];
    const errors: string[] = [];
    const running = runWorkers(
      q,
      2,
      async (key) => {
        tries.push(clock.monotonic());
        if (tries.length < 3) throw new Error(`fail ${key}`);
      },
      (_k, err) => errors.push((err as Error).message),
      ac.signal,
    );
    q.add('x');
    await flush();
    await clock.advance(100);
    await clock.advance(200);
    assert.deepEqual(tries, [0, 100, 300]);
    assert.equal(errors.length, 2);
    assert.equal(q.numRequeues('x'), 0);
    ac.abort();
    q.shutDown();
    await running;
  });

  it('get resolves undefined once the queue shuts down', async () => {
    const q = new WorkQueue<string>(new FakeClock());
    const waiting = q.get();
    q.shutDown();
    assert.equal(await waiting, undefined);
    q.add('late');
    assert.equal(q.length, 0);
  });
});
