// Where a durable lease renewal's main-thread CPU goes (BENCHMARKS.md "Scale round 2"): the server under
// bench/renewal.ts's load with --cpu-prof, its profile's self time grouped by layer, per request.
//   node --import tsx bench/renewal-profile.ts [--duration 8] [--connections 50] [--leases 1000] [--keep DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLeases, renewalLoad, spawnListening } from './lib.js';
import { machine } from './proc-stats.js';
import { layersTable, readProfile, summariseLayers } from './profile-layers.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '50' },
    leases: { type: 'string', default: '1000' },
    keep: { type: 'string' },
  },
});

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
  // Lease creation is in the profile too; at 1,000 leases against ~50,000+ renewals it is noise.
  const rows = summariseLayers(readProfile(profDir), r.total + leases.length);
  console.log(`Durable renewal profile: ${r.total} renewals, ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms (${header})\n`);
  console.log(layersTable(rows, 'request'));
} finally {
  if (values.keep === undefined) rmSync(dir, { recursive: true, force: true });
}
