import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import { SHEPHERD_BIN, startProcess, startServer, tempDir, type Proc, type ServerProc } from '../support/processes.js';

// Real processes: a server with short controller flags and `shepherd --mode fleet --simulator light` driven
// through its stdin. Needs `npm run build` (bin/ runs dist/).
const SHORT = [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  '2s',
  '--node-startup-grace-period',
  '3s',
];

interface LeaseItem {
  metadata: { name: string; resourceVersion: string };
  spec: { renewTime: string; holderIdentity: string };
}

async function leases(server: ServerProc): Promise<Map<string, LeaseItem>> {
  const res = await fetch(`${server.url}/api/v1/leases`);
  const body = (await res.json()) as { items: LeaseItem[] };
  return new Map(body.items.map((l) => [l.metadata.name, l]));
}

function renewedSince(now: Map<string, LeaseItem>, then: Map<string, LeaseItem>, prefix: string): boolean {
  const names = [...then.keys()].filter((n) => n.startsWith(prefix));
  return (
    names.length > 0 && names.every((n) => (now.get(n)?.spec.renewTime ?? '') > (then.get(n)?.spec.renewTime ?? ''))
  );
}

describe('shepherd --mode fleet --simulator light (real processes)', () => {
  const dir = tempDir('shepherd-light-fleet-');
  let server: ServerProc;
  let fleet: Proc;

  before(async () => {
    server = await startServer(['--db', `${dir.path}/db.sqlite`, '--log-level', 'warn', ...SHORT]);
    fleet = startProcess(
      SHEPHERD_BIN,
      [
        '--mode',
        'fleet',
        '--simulator',
        'light',
        '--nodes',
        '6',
        '--zones',
        '2',
        '--api-addr',
        server.addr,
        '--lease-duration',
        '4s',
      ],
      { name: 'light-fleet' },
    );
  });

  after(async () => {
    await fleet?.stop();
    await server?.stop();
    dir.cleanup();
  });

  it('registers Ready nodes, renews their leases, and a cut zone goes Unknown without a wrong Unknown', async () => {
    const first = await eventually(
      async () => {
        const m = await leases(server);
        return m.size === 6 ? m : undefined;
      },
      { what: 'six leases registered' },
    );
    for (const l of first.values()) assert.equal(l.spec.holderIdentity, l.metadata.name);
    await eventually(async () => renewedSince(await leases(server), first, 'fleet-zone-'), {
      what: 'every lease renewed',
    });
    const ready = async (): Promise<string> => {
      const res = await fetch(`${server.url}/api/v1/nodes`);
      const body = (await res.json()) as {
        items: Array<{ metadata: { name: string }; status?: { conditions?: Array<{ type: string; status: string }> } }>;
      };
      return body.items
        .map((n) => `${n.metadata.name}=${n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '-'}`)
        .sort()
        .join(' ');
    };
    await eventually(async () => !(await ready()).includes('=-') && !(await ready()).includes('=Unknown'), {
      what: 'every node Ready=True',
    });

    fleet.child.stdin?.write('cut zone-a\n');
    await fleet.waitForLine(/cut zone zone-a: stopped 3 agents/);
    await eventually(
      async () =>
        (await ready()) ===
        'fleet-zone-a-0=Unknown fleet-zone-a-1=Unknown fleet-zone-a-2=Unknown fleet-zone-b-0=True fleet-zone-b-1=True fleet-zone-b-2=True',
      { what: 'zone-a Unknown, zone-b still Ready', timeoutMs: 20_000 },
    );
    const atCut = await leases(server);
    await eventually(async () => renewedSince(await leases(server), atCut, 'fleet-zone-b-'), {
      what: 'zone-b renewing after the cut',
    });
    const afterB = await leases(server);
    for (const n of ['fleet-zone-a-0', 'fleet-zone-a-1', 'fleet-zone-a-2'])
      assert.equal(afterB.get(n)?.spec.renewTime, atCut.get(n)?.spec.renewTime, `${n} must not renew after the cut`);

    fleet.child.stdin?.write('restore\n');
    await eventually(async () => !(await ready()).includes('=Unknown'), {
      what: 'zone-a Ready again after restore',
      timeoutMs: 20_000,
    });
    fleet.child.stdin?.write('quit\n');
    const exit = await fleet.exited;
    assert.equal(exit.code, 0);
    const json = /totals-json (\{.*\})/.exec(fleet.text)?.[1];
    assert.ok(json, fleet.text);
    const totals = JSON.parse(json) as {
      mode: string;
      renewPhase: string;
      renewals: number;
      errors: number;
      wrongUnknown: number;
    };
    assert.equal(totals.mode, 'light');
    assert.equal(totals.renewPhase, 'random', 'the default phase');
    assert.ok(totals.renewals >= 6, `renewals ${totals.renewals}`);
    assert.equal(totals.errors, 0);
    assert.equal(totals.wrongUnknown, 0);
    assert.match(
      fleet.text,
      /light mode: \d+ renewals\/s of \d+\/s expected, simulator CPU .*, random renewal phase\n/,
    );
  });
});
