// What a durable lease renewal allocates on the server's main thread, by function: the server runs in this
// process under V8's sampling heap profiler (objects later collected by minor and major GCs included), a child
// process renews leases against it with bench/lib.ts's load, and the allocation samples are summed per frame.
//   npm run bench:allocations -- [--duration 5] [--connections 50] [--leases 1000]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../src/main/shepherd.js';
import { eventually } from '../test/support/eventually.js';
import { createLeases, ROOT } from './lib.js';
import { machine } from './proc-stats.js';

// Read before the runs: the load and speed probe describe the machine they start on.
const startedOn = machine();

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    leases: { type: 'string', default: '1000' },
    port: { type: 'string', default: '19876' },
  },
});

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

const dir = mkdtempSync(join(tmpdir(), 'shepherd-alloc-'));
const url = `http://127.0.0.1:${values.port}`;
const server = main([
  '--mode',
  'server',
  '--listen',
  `127.0.0.1:${values.port}`,
  '--db',
  join(dir, 'db'),
  '--no-controller',
  '--log-level',
  'warn',
]);
try {
  await eventually(async () => (await fetch(`${url}/healthz`)).ok, { what: 'the server answering /healthz' });
  const leases = await createLeases(url, Number(values.leases));
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  const load = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import('./bench/lib.ts').then(async (lib) => { const r = await lib.renewalLoad(${JSON.stringify(url)}, ${JSON.stringify(leases)}, { connections: ${Number(values.connections)}, durationS: ${Number(values.duration)} }); console.log(JSON.stringify(r)); })`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  load.stdout.on('data', (b: Buffer) => (out += b.toString()));
  await new Promise((r) => load.once('exit', r));
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: SamplingNode } };
  session.disconnect();
  const result = JSON.parse(out.trim().split('\n').at(-1) as string) as { total: number; rps: number };
  const bySelf = new Map<string, number>();
  let total = 0;
  const walk = (n: SamplingNode): void => {
    const f = n.callFrame;
    const where = f.url === '' ? '(native)' : f.url.replace(/^.*\/(node_modules\/|src\/|dist\/)/, '$1');
    const key = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
    bySelf.set(key, (bySelf.get(key) ?? 0) + n.selfSize);
    total += n.selfSize;
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  console.log(
    `Allocations per durable renewal: ${result.total} renewals at ${result.rps.toFixed(0)} req/s (${startedOn})\n`,
  );
  console.log(`total: ${(total / result.total / 1024).toFixed(1)} KiB per renewal (sampled every 512 bytes)\n`);
  console.log('| function (allocation site) | bytes per renewal |');
  console.log('|---|---|');
  for (const [k, v] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    console.log(`| ${k} | ${(v / result.total).toFixed(0)} |`);
  }
} finally {
  process.kill(process.pid, 'SIGTERM');
  await server;
  rmSync(dir, { recursive: true, force: true });
}
