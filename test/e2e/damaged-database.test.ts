import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { damage, filledStore } from '../support/damaged-db.js';
import { SHEPHERD_BIN, startProcess, tempDir } from '../support/processes.js';

// The real program on a damaged database: it must not start (and report ready); it must say what to do.
test(
  'shepherd --mode server refuses a damaged database and says to restore or use another --db',
  { timeout: 60_000 },
  async () => {
    const dir = tempDir('shepherd-damaged-');
    try {
      const db = join(dir.path, 'shepherd.db');
      await (await filledStore(db)).close();
      damage(db);
      const server = startProcess(SHEPHERD_BIN, ['--mode', 'server', '--listen', '127.0.0.1:0', '--db', db]);
      const { code } = await server.exited;
      assert.equal(code, 1, server.text);
      assert.match(server.text, /shepherd: the database at .*shepherd\.db is damaged \(quick_check: /);
      assert.match(server.text, /restore it from a backup/);
      assert.match(server.text, /--db pointing to a new file/);
      assert.doesNotMatch(server.text, /listening on/);
    } finally {
      dir.cleanup();
    }
  },
);
