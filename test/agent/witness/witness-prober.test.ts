import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProbeTransport } from '../../../src/agent/witness/probe-transport.js';
import { WitnessProber } from '../../../src/agent/witness/witness-prober.js';
import type { ProbeAnswer } from '../../../src/agent/witness/witness-server.js';
import { ServiceUnavailableError } from '../../../src/core/errors.js';
import { silentLogger } from '../../../src/core/logger.js';
import { ZONE_LABEL, type Node } from '../../../src/core/node.js';
import { seededRandom } from '../../../src/core/random.js';
import {
  parseWitnessReport,
  WITNESS_ADDRESS_ANNOTATION,
  WITNESS_REPORT_ANNOTATION,
} from '../../../src/core/witness-report.js';
import { FakeApiClient } from '../../support/fake-api-client.js';
import { FakeClock } from '../../support/fake-clock.js';

/** Peers by address: 'up' answers, 'down' refuses, 'hang' never answers, or another node's name answers. */
class FakeTransport implements ProbeTransport {
  readonly peers = new Map<string, 'up' | 'down' | 'hang' | { imposter: string }>();
  calls = 0;
  probe(address: string, nonce: string, signal: AbortSignal): Promise<ProbeAnswer> {
    this.calls++;
    const p = this.peers.get(address) ?? 'down';
    const name = address.split(':')[0] as string;
    if (p === 'up') return Promise.resolve({ node: name, nonce });
    if (typeof p === 'object') return Promise.resolve({ node: p.imposter, nonce });
    if (p === 'down') return Promise.reject(new Error('ECONNREFUSED'));
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
  }
  close(): void {}
}

function node(name: string, zone: string, address?: string): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: '',
      creationTimestamp: '2026-11-29T12:00:00.000Z',
      labels: { [ZONE_LABEL]: zone },
      ...(address ? { annotations: { [WITNESS_ADDRESS_ANNOTATION]: address } } : {}),
    },
    spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] },
    status: { conditions: [] },
  };
}

/** `me` in zone-a and peers b1, c1 (its targets with count 2: the only nodes outside zone-a), each "up". */
function rig(count = 2) {
  const clock = new FakeClock();
  const client = new FakeApiClient({ now: () => clock.now() });
  const transport = new FakeTransport();
  client.put('nodes', node('me', 'zone-a'));
  for (const [n, z] of [
    ['b1', 'zone-b'],
    ['c1', 'zone-c'],
  ] as const) {
    client.put('nodes', node(n, z, `${n}:7000`));
    transport.peers.set(`${n}:7000`, 'up');
  }
  const prober = new WitnessProber({
    client,
    clock,
    random: seededRandom(1),
    log: silentLogger,
    transport,
    config: { nodeName: 'me', zone: 'zone-a', address: 'me:7000', count, intervalMs: 5_000, timeoutMs: 2_000 },
  });
  const ac = new AbortController();
  const done = prober.run(ac.signal);
  const own = (): Node => structuredClone(client.data.nodes.get('me')) as unknown as Node;
  const report = () => parseWitnessReport(own().metadata.annotations?.[WITNESS_REPORT_ANNOTATION]);
  const writes = () => client.callsOf('nodes', 'update').length;
  return { clock, client, transport, prober, ac, done, own, report, writes };
}

describe('WitnessProber', () => {
  it('publishes its address and first report once, then writes nothing while nothing changes', async () => {
    const r = rig();
    await r.clock.advance(0);
    assert.equal(r.own().metadata.annotations?.[WITNESS_ADDRESS_ANNOTATION], 'me:7000');
    assert.deepEqual(
      [...r.report()].map(([n, o]) => [n, o.reachable]),
      [
        ['b1', true],
        ['c1', true],
      ],
    );
    assert.equal(r.writes(), 1);
    await r.clock.advance(60 * 60_000);
    assert.equal(r.writes(), 1, 'an hour of healthy probes: no write');
    const lists = r.client.callsOf('nodes', 'list').length;
    assert.ok(lists <= 20, `the peer list is read rarely once settled (${lists} lists in an hour)`);
    assert.ok(r.prober.stats().probes >= 2 * 720);
    // Only its own Node, and its taints and spec sent back untouched.
    assert.ok(r.client.callsOf('nodes', 'update').every((c) => c.name === 'me'));
    assert.deepEqual(r.own().spec.taints, [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }]);
    r.ac.abort();
    await r.done;
  });

  it('reports a peer unreachable after two failed probes, and reachable again on its first answer', async () => {
    const r = rig();
    await r.clock.advance(0);
    r.transport.peers.set('b1:7000', 'down');
    await r.clock.advance(5_000);
    assert.equal(r.report().get('b1')?.reachable, true, 'one failed probe is not an outage');
    await r.clock.advance(5_000);
    const lost = r.report().get('b1');
    assert.equal(lost?.reachable, false);
    assert.equal(lost?.since, '2026-11-29T12:00:05.000Z', 'since the first failed probe');
    assert.equal(r.writes(), 2);
    r.transport.peers.set('b1:7000', 'up');
    await r.clock.advance(5_000);
    assert.equal(r.report().get('b1')?.reachable, true);
    assert.equal(r.writes(), 3);
    r.ac.abort();
    await r.done;
  });

  it('a probe that hangs fails at the timeout; an imposter at the address is no answer', async () => {
    const r = rig();
    await r.clock.advance(0);
    r.transport.peers.set('b1:7000', 'hang');
    r.transport.peers.set('c1:7000', { imposter: 'someone-else' });
    await r.clock.advance(5_000 + 2_000 + 5_000 + 2_000);
    assert.equal(r.report().get('b1')?.reachable, false);
    assert.equal(r.report().get('c1')?.reachable, false);
    r.ac.abort();
    await r.done;
    assert.equal(r.clock.pendingSleepers, 0);
  });

  it('a report the API refused is written at the next round; nothing is lost', async () => {
    const r = rig();
    await r.clock.advance(0);
    r.transport.peers.set('c1:7000', 'down');
    r.client.failNext('nodes', 'get', new ServiceUnavailableError('partitioned'));
    await r.clock.advance(10_000);
    assert.equal(r.report().get('c1')?.reachable, true, 'the write failed');
    await r.clock.advance(5_000);
    assert.equal(r.report().get('c1')?.reachable, false);
    r.ac.abort();
    await r.done;
  });

  it('a new peer is picked up by the next read of the list; a peer that left is dropped from the report', async () => {
    const r = rig(3);
    await r.clock.advance(0);
    assert.equal(r.report().size, 2);
    r.client.put('nodes', node('b2', 'zone-b', 'b2:7000'));
    r.transport.peers.set('b2:7000', 'up');
    await r.clock.advance(5_000);
    assert.deepEqual([...r.report().keys()], ['b1', 'b2', 'c1']);
    r.client.remove('nodes', 'c1');
    await r.clock.advance(10 * 60_000);
    assert.deepEqual([...r.report().keys()], ['b1', 'b2']);
    r.ac.abort();
    await r.done;
  });
});
