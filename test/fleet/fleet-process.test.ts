import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import { SHEPHERD_BIN, startProcess, startServer, tempDir, type Proc, type ServerProc } from '../support/processes.js';

// Real processes: `shepherd --mode server` with short controller flags and `shepherd --mode fleet` driven
// through its stdin, as an operator would drive a failure drill. Needs `npm run build` (bin/ runs dist/).
const SHORT = [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  '2s',
  '--node-startup-grace-period',
  '3s',
];

interface LeaseItem {
  metadata: { name: string };
  spec: { renewTime: string };
}

async function renewTimes(server: ServerProc, zone: string): Promise<Map<string, string>> {
  const res = await fetch(`${server.url}/api/v1/leases`);
  const body = (await res.json()) as { items: LeaseItem[] };
  return new Map(
    body.items
      .filter((l) => l.metadata.name.startsWith(`fleet-${zone}-`))
      .map((l) => [l.metadata.name, l.spec.renewTime]),
  );
}

function allAdvanced(now: Map<string, string>, then: Map<string, string>): boolean {
  return then.size > 0 && [...then].every(([name, t]) => (now.get(name) ?? '') > t);
}

describe('shepherd --mode fleet chaos controls (real processes)', () => {
  const dir = tempDir('shepherd-fleet-');
  let server: ServerProc;
  let fleet: Proc;

  before(async () => {
    server = await startServer(['--db', `${dir.path}/db.sqlite`, '--log-level', 'warn', ...SHORT]);
    fleet = startProcess(
      SHEPHERD_BIN,
      ['--mode', 'fleet', '--nodes', '6', '--zones', '2', '--api-addr', server.addr, '--lease-duration', '4s'],
      { name: 'fleet' },
    );
  });

  after(async () => {
    await fleet?.stop();
    await server?.stop();
    dir.cleanup();
  });

  it('a cut zone stops renewing, the server marks it Unknown, and restore resumes it', async () => {
    const firstA = await eventually(
      async () => {
        const m = await renewTimes(server, 'zone-a');
        return m.size === 3 ? m : undefined;
      },
      { what: 'zone-a leases registered' },
    );
    await eventually(async () => allAdvanced(await renewTimes(server, 'zone-a'), firstA), { what: 'zone-a renewing' });

    fleet.child.stdin?.write('cut zone-a\n');
    await fleet.waitForLine(/cut zone zone-a: stopped 3 agents/);
    // Once every zone-b agent renewed after the cut, a zone-a renewal in flight at the cut has landed too.
    const atCut = await renewTimes(server, 'zone-b');
    await eventually(async () => allAdvanced(await renewTimes(server, 'zone-b'), atCut), {
      what: 'zone-b renewing after the cut',
    });
    const cutA = await renewTimes(server, 'zone-a');
    // Three more renewal rounds of zone-b (it keeps renewing) while zone-a must not move.
    for (let round = 1; round <= 3; round++) {
      const before = await renewTimes(server, 'zone-b');
      await eventually(async () => allAdvanced(await renewTimes(server, 'zone-b'), before), {
        what: `zone-b renewal round ${round} after the cut`,
      });
    }
    assert.deepEqual(await renewTimes(server, 'zone-a'), cutA, 'zone-a renewTime must stop advancing');

    const seen = fleet.output.length;
    fleet.child.stdin?.write('status\n');
    await eventually(
      () =>
        fleet.output.slice(seen).some((l) => /server: Ready 3 Unknown 3 /.test(l)) ||
        (fleet.child.stdin?.write('status\n'), false),
      {
        what: 'the fleet report showing zone-a Unknown on the server',
        intervalMs: 500,
      },
    );

    fleet.child.stdin?.write('restore\n');
    await fleet.waitForLine(/restore: restarting 3 agents/);
    await eventually(async () => allAdvanced(await renewTimes(server, 'zone-a'), cutA), {
      what: 'zone-a renewing after restore',
      timeoutMs: 20_000,
    });

    fleet.child.stdin?.write('quit\n');
    const exit = await fleet.exited;
    assert.equal(exit.code, 0);
    assert.match(fleet.text, /totals-json \{.*"errors":0/);
  });
});
