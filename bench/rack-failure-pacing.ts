/**
 * Eviction pacing in a rack failure (BENCHMARKS.md; docs/workloads.md#eviction-pacing-in-a-rack-failure): a real
 * server on short controller flags and `shepherd --mode fleet --scenario rack-failure` with a Deployment of
 * placeholder pods. The scenario prints, per zone, the gaps between the taints' `timeAdded` grouped by the zone's
 * rate (to compare with one token, 1/rate, within one monitor period) and how long after its node's taint each pod
 * was marked for deletion (to compare with its tolerationSeconds, within a second). Needs `npm run build`.
 *
 *   node --import tsx bench/rack-failure-pacing.ts [--pods 240] [--toleration 3] [--rate 2] [--secondary-rate 0.5]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, spawnListening } from './lib.js';

const { values } = parseArgs({
  options: {
    pods: { type: 'string', default: '240' },
    toleration: { type: 'string', default: '3' },
    rate: { type: 'string', default: '2' },
    'secondary-rate': { type: 'string', default: '0.5' },
    'monitor-period': { type: 'string', default: '200ms' },
  },
});
const SHEPHERD = join(ROOT, 'bin', 'shepherd');

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'shepherd-rack-bench-'));
  const server = await spawnListening(
    [
      SHEPHERD,
      ...['--mode', 'server', '--listen', '127.0.0.1:0', '--db', join(dir, 'db.sqlite'), '--log-level', 'warn'],
      ...['--node-monitor-period', values['monitor-period'] as string, '--node-monitor-grace-period', '4s'],
      ...['--node-startup-grace-period', '6s', '--node-eviction-rate', values.rate as string],
      ...['--secondary-node-eviction-rate', values['secondary-rate'] as string],
      ...['--default-unreachable-toleration-seconds', values.toleration as string],
      ...['--default-not-ready-toleration-seconds', values.toleration as string],
    ],
    'server',
  );
  const addr = new URL(server.url).host;
  console.log(
    `server ${server.url}: monitor period ${values['monitor-period']}, grace 4s, rates ${values.rate}/s and ` +
      `${values['secondary-rate']}/s, tolerationSeconds ${values.toleration}; ${values.pods} pods`,
  );
  const fleet = spawn(
    process.execPath,
    [
      SHEPHERD,
      ...['--mode', 'fleet', '--scenario', 'rack-failure', '--api-addr', addr, '--lease-duration', '4s'],
      ...['--scenario-pods', values.pods as string, '--step-timeout', '60s', '--log-level', 'warn'],
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const code = await new Promise<number>((res) => fleet.once('exit', (c) => res(c ?? 1)));
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  return code;
}

process.exitCode = await main();
