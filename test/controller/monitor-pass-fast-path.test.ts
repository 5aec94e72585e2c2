import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Informer } from '../../src/client/informer.js';
import { defaultNodeLifecycleConfig as cfg } from '../../src/controller/node-lifecycle/config.js';
import { LeaseCursor } from '../../src/controller/node-lifecycle/lease-cursor.js';
import {
  isExpired,
  markUnknown,
  observeNode,
  wouldMarkChange,
  type NodeHealth,
} from '../../src/controller/node-lifecycle/node-health.js';
import { commitStaged, judgeStaged, newNodeRecord } from '../../src/controller/node-lifecycle/node-record.js';
import type { Lease } from '../../src/core/lease.js';
import { silentLogger } from '../../src/core/logger.js';
import { EXCLUDE_DISRUPTION_LABEL, ZONE_LABEL, type Node, type NodeCondition } from '../../src/core/node.js';
import { eventually } from '../support/eventually.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { FakeClock } from '../support/fake-clock.js';
import { harness, makeLease, makeNode } from './node-lifecycle-harness.js';

const FC = { seed: 4242, numRuns: 200 };
const at = (s: number): string => new Date(Date.UTC(2026, 10, 29, 12, 0, s)).toISOString();

/** What can happen to a node's cached objects between two passes. */
type Step = 'nothing' | 'renew' | 'lease-edit' | 'lease-gone' | 'heartbeat' | 'status-edit' | 'ready-removed' | 'copy';

describe('monitor pass fast path', () => {
  it('judgeStaged + commitStaged keep exactly the health observeNode would compute, pass after pass', () => {
    const step = fc.constantFrom<Step>(
      'nothing',
      'renew',
      'lease-edit',
      'lease-gone',
      'heartbeat',
      'status-edit',
      'ready-removed',
      'copy',
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(step, fc.integer({ min: 0, max: 30_000 })), { minLength: 1, maxLength: 25 }),
        (steps) => {
          let rv = 1;
          let node: Node = {
            ...makeNode('n', Date.UTC(2026, 10, 29, 12)),
            metadata: { ...makeNode('n', 0).metadata, resourceVersion: String(rv) },
          };
          node = {
            ...node,
            status: {
              conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: at(0), lastTransitionTime: at(0) }],
            },
          };
          let lease: Lease | undefined = {
            ...makeLease('n', Date.UTC(2026, 10, 29, 12)),
            metadata: { ...makeLease('n', 0).metadata, resourceVersion: String(++rv) },
          };
          let reference: NodeHealth | undefined;
          const rec = newNodeRecord(node);
          let now = 0;
          for (const [what, dt] of steps) {
            now += dt;
            const s = rv;
            if (what === 'renew' && lease)
              lease = {
                ...lease,
                metadata: { ...lease.metadata, resourceVersion: String(++rv) },
                spec: { ...lease.spec, renewTime: at(s) },
              };
            if (what === 'lease-edit' && lease)
              lease = {
                ...lease,
                metadata: { ...lease.metadata, resourceVersion: String(++rv), labels: { e: String(s) } },
              };
            if (what === 'lease-gone') lease = undefined;
            const ready = node.status.conditions?.find((c) => c.type === 'Ready');
            const withReady = (c: NodeCondition): Node => ({
              ...node,
              metadata: { ...node.metadata, resourceVersion: String(++rv) },
              status: { conditions: [c] },
            });
            if (what === 'heartbeat')
              node = withReady({
                type: 'Ready',
                status: 'True',
                lastHeartbeatTime: at(s),
                lastTransitionTime: ready?.lastTransitionTime ?? at(s),
              });
            if (what === 'status-edit' && ready) node = withReady({ ...ready, reason: `edit-${s}` });
            if (what === 'ready-removed')
              node = {
                ...node,
                metadata: { ...node.metadata, resourceVersion: String(++rv) },
                status: { conditions: [] },
              };
            if (what === 'copy') {
              node = structuredClone(node);
              if (lease) lease = structuredClone(lease);
            }
            const obs = observeNode(reference, node, lease, now, cfg);
            reference = obs.health;
            const expected = isExpired(obs.health, obs.gracePeriodMs, now) && markUnknown(node, 0).changed;
            assert.equal(judgeStaged(rec, node, lease, now, cfg), expected, `mark verdict after ${what}`);
            commitStaged(rec, node);
            assert.deepEqual(rec.health, reference, `health after ${what}`);
            assert.deepEqual(
              rec.passCurrent,
              obs.hasReady ? node.status.conditions?.find((c) => c.type === 'Ready') : undefined,
              `current after ${what}`,
            );
          }
        },
      ),
      FC,
    );
  });

  it('wouldMarkChange agrees with markUnknown', () => {
    const cond = fc.record({
      type: fc.constantFrom('Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable'),
      status: fc.constantFrom('True', 'False', 'Unknown') as fc.Arbitrary<NodeCondition['status']>,
    });
    fc.assert(
      fc.property(fc.uniqueArray(cond, { selector: (c) => c.type, maxLength: 5 }), (conditions) => {
        const node = { ...makeNode('n', 0), status: { conditions } };
        assert.equal(wouldMarkChange(node), markUnknown(node, 0).changed);
      }),
      FC,
    );
  });

  it('LeaseCursor finds the same leases as a lookup by key, with other namespaces and gaps, by identity or by name', () => {
    const lease = (ns: string, name: string): Lease => ({
      ...makeLease(name, 0),
      metadata: { ...makeLease(name, 0).metadata, namespace: ns },
    });
    const names = fc.uniqueArray(fc.stringMatching(/^[a-c][a-c0-9-]{0,3}$/), { maxLength: 30 });
    fc.assert(
      fc.property(
        names,
        names,
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        (nodeNames, leaseNames, remember) => {
          const all = [
            ...leaseNames.map((n) => lease('node-lease', n)),
            lease('aaa', 'x'),
            lease('shepherd-system', 'b0'),
            lease('node-lease-x', 'a'),
          ];
          const byKey = new Map(all.map((l) => [`${l.metadata.namespace}/${l.metadata.name}`, l]));
          const sorted = [...byKey.keys()].sort().map((k) => byKey.get(k) as Lease);
          const cursor = new LeaseCursor(sorted);
          nodeNames.sort().forEach((name, i) => {
            const want = byKey.get(`node-lease/${name}`);
            assert.equal(cursor.leaseOf(name, remember[i] ? want : undefined), want, name);
          });
        },
      ),
      FC,
    );
  });

  it('Informer keeps list() and sortedView() sorted and current through adds, updates and deletes', async () => {
    const client = new FakeApiClient();
    for (const n of ['b', 'd', 'a']) client.put('leases', makeLease(n, 0)); // resourceVersions 2, 3, 4 (a new server is at 1)
    const informer = new Informer<Lease>({
      client: client.leases(),
      clock: new FakeClock(),
      log: silentLogger,
      keyOf: (l) => `${l.metadata.namespace}/${l.metadata.name}`,
    });
    const ac = new AbortController();
    void informer.run(ac.signal);
    const settle = (rv: number): Promise<unknown> =>
      eventually(() => informer.lastSyncResourceVersion() === String(rv), {
        what: `the informer at resourceVersion ${rv}`,
        last: () => informer.lastSyncResourceVersion(),
      });
    await settle(4);
    const view = (): string[] => informer.sortedView().map((l) => `${l.metadata.name}@${l.metadata.resourceVersion}`);
    assert.deepEqual(view(), ['a@4', 'b@2', 'd@3']);
    const copy = informer.list();
    client.put('leases', makeLease('b', 0));
    await settle(5);
    assert.deepEqual(view(), ['a@4', 'b@5', 'd@3'], 'patched in place');
    assert.deepEqual(
      copy.map((l) => l.metadata.resourceVersion),
      ['4', '2', '3'],
      'list() is a copy',
    );
    client.put('leases', makeLease('c', 0));
    client.remove('leases', 'a');
    await settle(7);
    assert.deepEqual(view(), ['b@5', 'c@6', 'd@3']);
    assert.deepEqual(
      informer.list().map((l) => l.metadata.name),
      ['b', 'c', 'd'],
    );
    ac.abort();
  });
});

describe('monitor pass: what the per-node memo must not hide', () => {
  it('steady passes over healthy nodes make no API call at all', async () => {
    const h = harness();
    for (const n of ['a', 'b', 'c']) h.addNode(n, { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    const before = h.client.calls.length;
    for (let i = 0; i < 4; i++) {
      await h.clock.advance(5_000);
      for (const n of ['a', 'b', 'c']) h.renew(n);
      await h.controller.monitorNodeHealth();
    }
    assert.deepEqual(
      h.client.calls.slice(before).filter((c) => c.resource !== 'leases' || c.op !== 'update'),
      [],
    );
  });

  it('a user edit of a clean Ready node is reconciled again (owned NoSchedule taint removed)', async () => {
    const h = harness();
    h.addNode('a', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    const cur = h.node('a');
    h.client.put('nodes', {
      ...cur,
      spec: {
        taints: [
          { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
          { key: 'user', effect: 'NoSchedule' },
        ],
      },
    });
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.deepEqual(
      h.node('a').spec.taints?.map((t) => t.key),
      ['user'],
    );
  });

  it('a zone label edit moves the node between zone counts; an exclude label takes it out', async () => {
    const h = harness();
    for (const n of ['a', 'b', 'c']) h.addNode(n, { ready: 'True', zone: 'z1' });
    await h.controller.monitorNodeHealth();
    const relabel = (name: string, labels: Record<string, string>): void => {
      const cur = h.node(name);
      h.client.put('nodes', { ...cur, metadata: { ...cur.metadata, labels } });
    };
    relabel('a', { [ZONE_LABEL]: 'z2' });
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    const counts = (): Record<string, number> =>
      Object.fromEntries(h.controller.snapshot().zones.map((z) => [z.zone, z.nodes]));
    assert.deepEqual(counts(), { z1: 2, z2: 1 });
    relabel('b', { [ZONE_LABEL]: 'z1', [EXCLUDE_DISRUPTION_LABEL]: '' });
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.deepEqual(counts(), { z1: 1, z2: 1 });
  });

  it('a node deleted and re-created between passes under the same list position is judged from its new copy', async () => {
    const h = harness();
    h.addNode('a', { ready: 'True', zone: 'z' });
    h.addNode('b', { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    h.nodes.remove('b');
    h.addNode('c', { ready: 'False', zone: 'z' });
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth();
    assert.equal(h.events('RemovingNode').length, 1);
    assert.equal(h.controller.snapshot().zones[0]?.notReady, 1);
    assert.equal(h.controller.healthOf('b'), undefined);
    assert.equal(h.controller.healthOf('c')?.probeTimestamp, 5_000);
  });
});
