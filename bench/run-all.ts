// `npm run bench`: the benchmarks of BENCHMARKS.md in turn, each in its own process, Markdown on stdout (progress on
// stderr). Needs `npm run build` first (the servers run bin/shepherd). About 25 minutes on the 2-core machine;
// pass names to run a subset: `npm run bench -- monitor watch`.
import { spawnSync } from 'node:child_process';
import { ROOT } from './lib.js';
import { machine } from './proc-stats.js';

const BENCHES: Array<{ name: string; title: string; args: string[] }> = [
  { name: 'renewal', title: '1. Lease renewal vs a no-op route', args: ['--import', 'tsx', 'bench/renewal.ts'] },
  { name: 'fleet', title: '2. Fleet capacity', args: ['--import', 'tsx', 'bench/fleet-capacity.ts'] },
  { name: 'monitor', title: '3. Monitor pass', args: ['--expose-gc', '--import', 'tsx', 'bench/monitor-pass.ts'] },
  { name: 'watch', title: '4. Watch fan-out', args: ['--import', 'tsx', 'bench/watch-fanout.ts'] },
  {
    name: 'cold-start',
    title: '5–6. Cold start and RSS with 100k nodes',
    args: ['--import', 'tsx', 'bench/cold-start.ts'],
  },
  {
    name: 'detection',
    title: '7–8. Detection latency and agent idle cost',
    args: ['--import', 'tsx', 'bench/detection-latency.ts'],
  },
  { name: 'db-size', title: '11. Database size after 1M renewals', args: ['--import', 'tsx', 'bench/db-size.ts'] },
];

const wanted = process.argv.slice(2);
const chosen = wanted.length === 0 ? BENCHES : BENCHES.filter((b) => wanted.includes(b.name));
if (chosen.length === 0)
  throw new Error(`no benchmark named ${wanted.join(', ')}; known: ${BENCHES.map((b) => b.name).join(', ')}`);
console.log(`# shepherd benchmarks\n\nMachine: ${machine()}\n`);
let failed = 0;
for (const b of chosen) {
  process.stderr.write(`== ${b.title}: node ${b.args.join(' ')}\n`);
  const started = Date.now();
  const r = spawnSync(process.execPath, b.args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  console.log(`## ${b.title}\n\n\`node ${b.args.join(' ')}\` (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  console.log(r.status === 0 ? r.stdout : `FAILED (exit ${r.status}):\n\n${r.stdout}`);
  if (r.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
