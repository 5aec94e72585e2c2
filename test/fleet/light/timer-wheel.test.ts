import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimerWheel } from '../../../src/fleet/light/timer-wheel.js';

function fired(wheel: TimerWheel, now: number): number[] {
  const out: number[] = [];
  wheel.advance(now, (id) => out.push(id));
  return out;
}

describe('TimerWheel', () => {
  it('fires each id in the first advance that reaches its time, in time order', () => {
    const wheel = new TimerWheel(10, 1000, 0);
    wheel.add(1, 55);
    wheel.add(2, 12);
    wheel.add(3, 999);
    assert.equal(wheel.size, 3);
    assert.deepEqual(fired(wheel, 9), []);
    assert.deepEqual(fired(wheel, 10), [2]);
    assert.deepEqual(fired(wheel, 49), []);
    assert.deepEqual(fired(wheel, 60), [1]);
    assert.deepEqual(fired(wheel, 2000), [3]);
    assert.equal(wheel.size, 0);
  });

  it('fires a time already past with the next slot', () => {
    const wheel = new TimerWheel(10, 100, 1000);
    wheel.advance(1500, () => assert.fail('nothing was added'));
    wheel.add(7, 3);
    assert.deepEqual(fired(wheel, 1509), []);
    assert.deepEqual(fired(wheel, 1510), [7]);
  });

  it('parks a time beyond the horizon in the last slot, so it fires early and the caller re-adds it', () => {
    const wheel = new TimerWheel(10, 100, 0);
    wheel.add(1, 5000);
    assert.deepEqual(fired(wheel, 99), []);
    assert.deepEqual(fired(wheel, 100), [1]);
  });

  it('an id added again while firing lands a full turn later, not in the slot being fired', () => {
    const wheel = new TimerWheel(10, 100, 0);
    wheel.add(1, 20);
    let count = 0;
    const fire = (id: number): void => {
      count++;
      wheel.add(id, 20 + count * 110);
    };
    wheel.advance(20, fire);
    assert.equal(count, 1);
    wheel.advance(129, fire);
    assert.equal(count, 1);
    wheel.advance(130, fire);
    assert.equal(count, 2);
  });
});
