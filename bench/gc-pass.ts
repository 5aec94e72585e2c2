// One collector pass over 100,000 Verdicts (BENCHMARKS.md section 24): the old way (one list without a limit,
// every object parsed and held) against pickInPages (src/registry/periodic-gc.ts: pages of 500, only refs kept),
// with the event loop's longest delay and the heap's growth during each.
//   npm run bench:gc-pass -- [--verdicts 100000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pickInPages } from '../src/registry/periodic-gc.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { verdict } from '../test/store/fixtures.js';
import { machine } from './proc-stats.js';

const { values } = parseArgs({ options: { verdicts: { type: 'string', default: '100000' } } });
const n = Number(values.verdicts);
const header = machine();
const dir = mkdtempSync(join(tmpdir(), 'shepherd-gc-pass-'));
const store = await openSqliteStore({ path: join(dir, 'db.sqlite') });
try {
  for (let i = 0; i < n; i += 2000) {
    const batch = Array.from({ length: Math.min(2000, n - i) }, (_, j) =>
      store.create('verdicts', verdict(`node-${i + j}.0000000000000000`, `node-${i + j}`)),
    );
    await Promise.all(batch);
  }
  const passes: Array<[string, () => Promise<number>]> = [
    ['one list without a limit (before)', async () => (await store.list('verdicts')).items.length],
    ['pickInPages, 500 a page', async () => (await pickInPages(store, 'verdicts', () => true)).refs.length],
  ];
  console.log(`Collector pass over ${n} Verdicts (${header})\n`);
  console.log('| pass | objects | wall ms | event-loop delay max ms | heap growth, peak MiB |');
  console.log('|---|---|---|---|---|');
  for (const [name, run] of passes) {
    (globalThis as { gc?: () => void }).gc?.();
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const heap0 = process.memoryUsage().heapUsed;
    let peak = heap0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
    const t0 = performance.now();
    const objects = await run();
    const ms = performance.now() - t0;
    clearInterval(sampler);
    delay.disable();
    const mib = (peak - heap0) / 1048576;
    console.log(`| ${name} | ${objects} | ${ms.toFixed(0)} | ${(delay.max / 1e6).toFixed(0)} | ${mib.toFixed(0)} |`);
  }
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
