import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildServer } from '../../src/api/build-server.js';
import { seededRandom } from '../../src/core/random.js';
import { damage, filledStore } from '../support/damaged-db.js';
import { FakeClock } from '../support/fake-clock.js';
import { tempDir } from '../store/sqlite-harness.js';
import { nodeBody } from './harness.js';

describe('/readyz reports a store that has started failing', () => {
  it('turns 503 once the database shows damage, and stays so (only a restore mends it)', async () => {
    const path = `${tempDir()}/shepherd.db`;
    const store = await filledStore(path);
    const api = await buildServer({ store, clock: new FakeClock(), random: seededRandom(1), log: false, version: 't' });
    const get = (url: string) => api.app.inject({ url });
    try {
      assert.equal((await get('/readyz')).statusCode, 200);
      // Damage under a running server; a small page cache makes SQLite read the damaged pages back.
      store.database.pragma('cache_size = 0');
      damage(path);
      const list = await get('/api/v1/nodes');
      assert.equal(list.statusCode, 503);
      const ready = await get('/readyz');
      assert.equal(ready.statusCode, 503);
      assert.equal(ready.json().reason, 'ServiceUnavailable');
      assert.match(ready.json().message, /is damaged .*restore it from a backup/);
      // Nothing the server does makes it ready again: not a write (whether or not it meets damaged pages), not time.
      await api.app.inject({ method: 'POST', url: '/api/v1/nodes', payload: nodeBody('after') });
      assert.equal((await get('/readyz')).statusCode, 503);
      assert.equal((await get('/readyz')).statusCode, 503);
    } finally {
      await api.app.close();
      await store.close();
    }
  });
});
