import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually } from './eventually.js';

describe('eventually', () => {
  it('returns the first truthy value fn returns, awaiting async ones', async () => {
    let n = 0;
    assert.equal(
      await eventually(async () => (++n >= 3 ? `ready after ${n}` : undefined), { what: 'n' }),
      'ready after 3',
    );
  });

  it('fails naming what it awaited and the last value seen', async () => {
    let n = 0;
    await assert.rejects(
      eventually(() => ({ count: ++n }).count > 1_000_000, { what: 'a million polls', timeoutMs: 30 }),
      /^Error: timed out after 30 ms waiting for a million polls; last value: false$/,
    );
    await assert.rejects(
      eventually(() => false, { what: 'the cache at 47', timeoutMs: 20, last: () => ({ rv: '31' }) }),
      /waiting for the cache at 47; state: \{ rv: '31' \}$/,
    );
  });

  it('counts a throw as "not yet" and reports the last error', async () => {
    let n = 0;
    assert.equal(
      await eventually(
        () => {
          if (++n < 3) throw new Error('connection refused');
          return n;
        },
        { what: 'a server' },
      ),
      3,
    );
    await assert.rejects(
      eventually(
        () => {
          throw new Error('connection refused');
        },
        { what: 'a server', timeoutMs: 20 },
      ),
      (err: Error) =>
        /waiting for a server; last error: Error: connection refused$/.test(err.message) &&
        (err.cause as Error).message === 'connection refused',
    );
  });
});
