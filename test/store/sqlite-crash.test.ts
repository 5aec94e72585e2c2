import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { it } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from './sqlite-harness.js';

it('after SIGKILL mid-write, reopening finds every write that had resolved', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const path = join(dir, 'crash.db');
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'crash-writer.ts'), path], {
    cwd: join(import.meta.dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acked = new Map<string, number>();
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  for await (const line of createInterface({ input: child.stdout })) {
    const [rv, name] = line.split(' ');
    acked.set(name!, Number(rv));
    if (acked.size >= 500) {
      child.kill('SIGKILL');
      break;
    }
  }
  assert.equal(await exited, 'SIGKILL');

  const store = await openSqliteStore({ path });
  try {
    const items = new Map(
      (await store.list('nodes')).items.map((n) => [n.metadata.name, Number(n.metadata.resourceVersion)]),
    );
    const lost = [...acked].filter(([name, rv]) => items.get(name) !== rv);
    assert.deepEqual(lost, [], 'every acknowledged write survived');
    assert.ok((await store.currentRevision()) >= Math.max(...acked.values()));
    assert.ok(items.size >= acked.size);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
