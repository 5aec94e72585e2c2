// Child process for sqlite-crash.test.ts: writes nodes forever and prints "<resourceVersion> <name>" for each
// write as soon as it resolves (stdout to a pipe is synchronous on Linux), until the parent SIGKILLs it.
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { node } from './fixtures.js';

const path = process.argv[2];
if (!path) throw new Error('usage: crash-writer.ts <db path>');
const store = await openSqliteStore({ path });
for (let round = 0; ; round++) {
  const names = Array.from({ length: 20 }, (_, i) => `w${round}-${i}`);
  await Promise.all(
    names.map(async (name) => {
      const created = await store.create('nodes', node(name));
      process.stdout.write(`${created.metadata.resourceVersion} ${name}\n`);
    }),
  );
}
