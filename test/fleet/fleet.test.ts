import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Lease } from '../../src/core/lease.js';
import { recordingLogger, silentLogger } from '../../src/core/logger.js';
import { seededRandom } from '../../src/core/random.js';
import { parseChaosCommand } from '../../src/fleet/chaos-commands.js';
import { applyChaos } from '../../src/fleet/chaos-control.js';
import { Fleet, planZones, zoneName } from '../../src/fleet/fleet.js';
import { instrumentClient, newClientStats } from '../../src/fleet/instrumented-client.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { FakeClock } from '../support/fake-clock.js';

const agent = {
  labels: {},
  leaseDurationSeconds: 40,
  nodeStatusUpdateFrequencyMs: 10_000,
  nodeStatusReportFrequencyMs: 300_000,
  memoryPressureThreshold: 0.05,
  diskPressureThreshold: 0.1,
  diskPath: '/',
  version: 'test',
};

function setup(perZone = 3, startRate = 100) {
  const clock = new FakeClock();
  const api = new FakeApiClient({ now: () => clock.now() });
  const stats = newClientStats();
  const log = recordingLogger();
  const fleet = new Fleet(
    {
      zones: [
        { name: 'zone-a', nodes: perZone },
        { name: 'zone-b', nodes: perZone },
      ],
      prefix: 'fleet',
      startRatePerSecond: startRate,
      agent,
    },
    { client: instrumentClient(api, stats, clock), clock, random: seededRandom(1), log, agentLog: silentLogger },
  );
  const out: string[] = [];
  const chaos = (line: string): void =>
    applyChaos(parseChaosCommand(line)!, {
      fleet,
      print: (s) => out.push(s),
      status: () => undefined,
      mark: () => undefined,
      quit: () => undefined,
    });
  const renewTimes = (zone: string): string[] =>
    fleet
      .zone(zone)
      .map(
        (n) => (api.data.leases.get(`node-lease/${n.name}`) as unknown as Lease | undefined)?.spec.renewTime ?? 'none',
      );
  return { clock, api, stats, fleet, chaos, out, renewTimes, log };
}

describe('fleet layout', () => {
  it('names zones zone-a … zone-z, zone-aa and spreads nodes evenly', () => {
    assert.deepEqual([0, 1, 25, 26, 27].map(zoneName), ['zone-a', 'zone-b', 'zone-z', 'zone-aa', 'zone-ab']);
    assert.deepEqual(planZones(10, 3), [
      { name: 'zone-a', nodes: 4 },
      { name: 'zone-b', nodes: 3 },
      { name: 'zone-c', nodes: 3 },
    ]);
    assert.throws(() => planZones(10, 0), /--zones must be at least 1/);
  });

  it('names nodes <prefix>-<zone>-<index>', () => {
    const { fleet } = setup(2);
    assert.deepEqual(
      fleet.nodes.map((n) => n.name),
      ['fleet-zone-a-0', 'fleet-zone-a-1', 'fleet-zone-b-0', 'fleet-zone-b-1'],
    );
  });
});

describe('fleet chaos controls', () => {
  it('registers every node at the start rate, not all at once', async () => {
    const { clock, api, fleet } = setup(3, 2);
    fleet.startNodes(fleet.nodes);
    await clock.advance(0);
    assert.equal(api.data.nodes.size, 1, 'the first start is immediate');
    await clock.advance(1000);
    assert.equal(api.data.nodes.size, 3, 'two more a second later at 2/s');
    await clock.advance(1500);
    assert.equal(api.data.nodes.size, 6);
    await fleet.close();
  });

  it('stop takes a share of the zone, lowest indexes first; resume brings back a share', async () => {
    const { fleet, chaos, out } = setup(4);
    fleet.startNodes(fleet.nodes);
    chaos('stop zone-a 0.5');
    assert.deepEqual(
      fleet.zone('zone-a').map((n) => fleet.isWanted(n)),
      [false, false, true, true],
    );
    chaos('stop zone-a 0.5');
    assert.deepEqual(
      fleet.zone('zone-a').map((n) => fleet.isWanted(n)),
      [false, false, true, true],
      'already half stopped: nothing more',
    );
    chaos('resume zone-a 0.25');
    assert.deepEqual(
      fleet.zone('zone-a').map((n) => fleet.isWanted(n)),
      [true, false, true, true],
    );
    assert.match(out[0] ?? '', /stopped 2 of 4 agents in zone-a \(fleet-zone-a-0, fleet-zone-a-1\)/);
    assert.throws(() => chaos('cut zone-x'), /no zone "zone-x" in this fleet; zones are zone-a, zone-b/);
    await fleet.close();
  });

  it('a cut zone stops renewing while the others go on; restore resumes it', async () => {
    const { clock, fleet, chaos, renewTimes, stats } = setup(3);
    fleet.startNodes(fleet.nodes);
    await clock.advance(11_000);
    const beforeA = renewTimes('zone-a');
    assert.ok(
      beforeA.every((t) => t !== 'none'),
      'every zone-a node registered its lease',
    );
    chaos('cut zone-a');
    const cutAt = renewTimes('zone-a');
    const bAtCut = renewTimes('zone-b');
    await clock.advance(30_000);
    assert.deepEqual(renewTimes('zone-a'), cutAt, 'zone-a renewTime frozen while cut');
    assert.ok(
      renewTimes('zone-b').every((t, i) => t > (bAtCut[i] as string)),
      'zone-b keeps renewing',
    );
    assert.deepEqual(
      fleet.counts().map((z) => [z.zone, z.running, z.stopped]),
      [
        ['zone-a', 0, 3],
        ['zone-b', 3, 0],
      ],
    );

    chaos('restore');
    // The leases were renewed 30 s ago (< 40 s lease): each fresh agent first watches its lease for one renew
    // interval (registration's duplicate-holder check), then adopts it and renews every ~10 s.
    await clock.advance(25_000);
    assert.ok(
      renewTimes('zone-a').every((t, i) => t > (cutAt[i] as string)),
      'zone-a renews again after restore',
    );
    assert.equal(stats.total.errors, 0);
    assert.ok(stats.total.renewals > 0 && stats.total.renewalLatency.count === stats.total.renewals);
    await fleet.close();
  });

  it('cut all stops every agent; a stopped node queued for a start stays stopped', async () => {
    const { clock, fleet, chaos, api } = setup(3, 1);
    fleet.startNodes(fleet.nodes);
    await clock.advance(0);
    chaos('cut all');
    await clock.advance(10_000);
    assert.equal(api.data.nodes.size, 1, 'only the node started before the cut registered');
    assert.deepEqual(
      fleet.counts().map((z) => z.running + z.queued),
      [0, 0],
    );
    await fleet.close();
  });
});
