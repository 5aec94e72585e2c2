// Where a durable lease renewal's main-thread CPU goes (BENCHMARKS.md "Scale round 2"): the server under
// bench/renewal.ts's load with --cpu-prof, its profile's self time grouped by layer, per request.
//   node --import tsx bench/renewal-profile.ts [--duration 8] [--connections 50] [--leases 1000] [--keep DIR]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLeases, renewalLoad, spawnListening } from './lib.js';
import { machine } from './proc-stats.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '50' },
    leases: { type: 'string', default: '1000' },
    keep: { type: 'string' },
  },
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The layer a sampled frame belongs to, from its script URL and name (first match wins). */
const LAYERS: Array<[string, (f: ProfileNode['callFrame']) => boolean]> = [
  ['idle', (f) => f.functionName === '(idle)'],
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['SQLite (better-sqlite3: statements, COMMIT, fsync wait)', (f) => /better-sqlite3/.test(f.url)],
  ['validation (zod)', (f) => /node_modules\/zod\//.test(f.url)],
  [
    'fastify routing, hooks, reply',
    (f) => /node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify)/.test(f.url),
  ],
  ['store (src/store)', (f) => /\/src\/store\/|\/dist\/store\//.test(f.url)],
  ['registry (src/registry)', (f) => /\/(src|dist)\/registry\//.test(f.url)],
  ['API handlers (src/api)', (f) => /\/(src|dist)\/api\//.test(f.url)],
  ['core (src/core)', (f) => /\/(src|dist)\/core\//.test(f.url)],
  [
    'node:http parse, sockets, streams',
    (f) =>
      /^node:(internal\/)?(_http|http|net|stream|internal\/streams|internal\/stream_base)/.test(f.url) ||
      /^node:_http/.test(f.url),
  ],
  ['JSON parse / stringify (native)', (f) => /^(parse|stringify|JSON)/.test(f.functionName) && f.url === ''],
  ['other native / program', (f) => f.url === ''],
  ['other JS', () => true],
];

function summarise(profile: Profile, requests: number): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const us = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    const layer = (LAYERS.find(([, match]) => match(frame)) as [string, unknown])[0];
    us.set(layer, (us.get(layer) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return LAYERS.map(([name]) => [name, (us.get(name) ?? 0) / requests] as [string, number]).filter(([, v]) => v > 0);
}

const header = machine();
const dir = mkdtempSync(join(tmpdir(), 'shepherd-prof-'));
const profDir = values.keep ?? join(dir, 'prof');
try {
  const s = await spawnListening(
    [
      '--cpu-prof',
      '--cpu-prof-dir',
      profDir,
      'bin/shepherd',
      '--mode',
      'server',
      '--listen',
      '127.0.0.1:0',
      '--db',
      join(dir, 'db.sqlite'),
      '--no-controller',
      '--log-level',
      'warn',
    ],
    'shepherd',
  );
  const leases = await createLeases(s.url, Number(values.leases));
  const r = await renewalLoad(s.url, leases, {
    connections: Number(values.connections),
    durationS: Number(values.duration),
  });
  await s.stop(); // SIGTERM: the server exits cleanly and writes its profile
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no profile in ${profDir}`);
  const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as Profile;
  // Lease creation is in the profile too; at 1,000 leases against ~50,000+ renewals it is noise.
  const rows = summarise(profile, r.total + leases.length);
  console.log(`Durable renewal profile: ${r.total} renewals, ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms (${header})\n`);
  console.log('| layer | µs of main-thread time per request |');
  console.log('|---|---|');
  for (const [name, v] of rows) console.log(`| ${name} | ${v.toFixed(1)} |`);
  const busy = rows.filter(([n]) => n !== 'idle').reduce((a, [, v]) => a + v, 0);
  console.log(`| **busy (all but idle)** | **${busy.toFixed(1)}** |`);
} finally {
  if (values.keep === undefined) rmSync(dir, { recursive: true, force: true });
}
