import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
import type { Zone } from '../../src/core/zone.js';
import { clusterNotes } from '../../src/ui/model/cluster-notes.js';
import { heartbeatOf, rowOf } from '../../src/ui/model/node-row.js';
import { DEFAULT_QUERY, selectRows, type TableQuery } from '../../src/ui/model/node-table.js';
import { formatBytes, parseQuantity } from '../../src/ui/model/quantity.js';
import { hrefOf, parseRoute } from '../../src/ui/model/route.js';
import { visibleRange } from '../../src/ui/model/virtual-window.js';
import { ZoneHistory } from '../../src/ui/model/zone-history.js';

// The dashboard's pure parts: what a row says about a Node, how the table filters and sorts, the chart's
// sliding window, routes, the virtual window and the banners. The browser test covers the rendering.
function node(
  name: string,
  ready: 'True' | 'False' | 'Unknown' | undefined,
  extra: {
    zone?: string;
    taints?: string[];
    suspect?: boolean;
    heartbeat?: string;
    cpu?: string;
    memory?: string;
  } = {},
): Node {
  const conditions: NonNullable<Node['status']['conditions']> = [];
  if (ready) conditions.push({ type: 'Ready', status: ready, reason: `R${ready}`, lastHeartbeatTime: extra.heartbeat });
  if (extra.suspect) conditions.push({ type: 'Suspect', status: 'True' });
  const status: Record<string, unknown> = { conditions };
  if (extra.cpu) status['allocatable'] = { cpu: extra.cpu, memory: extra.memory ?? '1Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: name,
      resourceVersion: '1',
      creationTimestamp: '2026-11-29T12:00:00.000Z',
      ...(extra.zone === undefined ? {} : { labels: { 'topology.kubernetes.io/zone': extra.zone } }),
    },
    spec: {
      taints: (extra.taints ?? []).map((t) => {
        const [key, effect] = t.split(':') as [string, 'NoSchedule' | 'NoExecute'];
        return { key, effect };
      }),
    },
    status: status as Node['status'],
  };
}

const NODES = [
  node('n-ready', 'True', { zone: 'z1', cpu: '4', memory: '8Gi' }),
  node('n-unknown', 'Unknown', {
    zone: 'z1',
    taints: ['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute'],
  }),
  node('n-notready', 'False', { zone: 'z2', cpu: '500m', memory: '512Mi' }),
  node('n-suspect', 'True', { zone: 'z2', suspect: true, cpu: '2', memory: '24576Mi' }),
  node('n-new', undefined),
];
const rows = NODES.map(rowOf);
const names = (q: Partial<TableQuery>, hb: (name: string) => number | undefined = () => undefined): string[] =>
  selectRows(rows, { ...DEFAULT_QUERY, ...q }, (r) => hb(r.name)).map((r) => r.name);

describe('dashboard model', () => {
  it('a row reads the Ready condition, Suspect, zone, taints (NoExecute first) and allocatable resources', () => {
    const unknown = rowOf(NODES[1] as Node);
    assert.equal(unknown.state, 'Unknown');
    assert.deepEqual(unknown.taints, [
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/unreachable:NoSchedule',
    ]);
    const suspect = rowOf(NODES[3] as Node);
    assert.equal(suspect.state, 'Ready');
    assert.equal(suspect.suspect, true);
    assert.equal(suspect.memory, '24 GiB');
    assert.equal(suspect.maxPods, 110);
    const fresh = rowOf(NODES[4] as Node);
    assert.equal(fresh.state, 'NoStatus');
    assert.equal(fresh.zone, 'default');
    assert.equal(rowOf(NODES[0] as Node), rows[0], 'one row per object version');
  });

  it('the heartbeat is the lease renewal, else the Ready condition heartbeat', () => {
    const row = rowOf(node('h', 'True', { heartbeat: '2026-11-29T12:00:00.000Z' }));
    assert.equal(heartbeatOf(row, undefined), Date.parse('2026-11-29T12:00:00.000Z'));
    const lease = { spec: { renewTime: '2026-11-29T12:00:05.000Z' } } as Lease;
    assert.equal(heartbeatOf(row, lease), Date.parse('2026-11-29T12:00:05.000Z'));
  });

  it('filters by text, zone and state; sorts with problems first and missing numbers last', () => {
    assert.deepEqual(names({}), ['n-new', 'n-notready', 'n-ready', 'n-suspect', 'n-unknown']);
    assert.deepEqual(names({ sort: 'status' }), ['n-unknown', 'n-notready', 'n-new', 'n-suspect', 'n-ready']);
    assert.deepEqual(names({ sort: 'name', descending: true }).slice(0, 2), ['n-unknown', 'n-suspect']);
    assert.deepEqual(names({ state: 'problems' }), ['n-new', 'n-notready', 'n-suspect', 'n-unknown']);
    assert.deepEqual(names({ state: 'tainted' }), ['n-unknown']);
    assert.deepEqual(names({ state: 'Suspect' }), ['n-suspect']);
    assert.deepEqual(names({ zone: 'z2' }), ['n-notready', 'n-suspect']);
    assert.deepEqual(names({ text: 'UNREACH' }), ['n-unknown']);
    assert.deepEqual(names({ sort: 'cpu' }), ['n-notready', 'n-suspect', 'n-ready', 'n-new', 'n-unknown']);
    assert.deepEqual(names({ sort: 'cpu', descending: true }).slice(0, 3), ['n-ready', 'n-suspect', 'n-notready']);
    const beats: Record<string, number> = { 'n-ready': 30, 'n-unknown': 10, 'n-suspect': 20 };
    assert.deepEqual(names({ sort: 'heartbeat' }, (n) => beats[n]).slice(0, 3), ['n-unknown', 'n-suspect', 'n-ready']);
  });

  it('quantities: cpu and memory strings as numbers; bytes for people', () => {
    assert.equal(parseQuantity('1500m'), 1.5);
    assert.equal(parseQuantity('24576Mi'), 24 * 2 ** 30);
    assert.equal(parseQuantity('2G'), 2e9);
    assert.equal(parseQuantity('lots'), undefined);
    assert.equal(formatBytes(512 * 2 ** 20), '512 MiB');
    assert.equal(formatBytes(1.5 * 2 ** 30), '1.5 GiB');
  });

  it('zone history: one sample a step (the latest wins), gaps for absent zones, a sliding window', () => {
    const h = new ZoneHistory({ windowMs: 10_000, stepMs: 1_000 });
    h.record(1_000, new Map([['a', 0]]));
    h.record(1_500, new Map([['a', 2]]));
    h.record(
      2_000,
      new Map([
        ['a', 3],
        ['b', 1],
      ]),
    );
    h.record(3_000, new Map([['b', 0]]));
    assert.deepEqual(h.series(), {
      times: [1, 2, 3],
      zones: ['a', 'b'],
      values: [
        [2, 3, null],
        [null, 1, 0],
      ],
    });
    h.record(12_500, new Map([['b', 4]]));
    assert.deepEqual(h.series(), { times: [3, 12.5], zones: ['b'], values: [[0, 4]] });
  });

  it('routes: every view has a link, node names are encoded, unknown hashes are named', () => {
    for (const route of [
      { view: 'overview' },
      { view: 'nodes' },
      { view: 'nodes', zone: 'us-east/1a' },
      { view: 'node', name: 'node 7' },
      { view: 'events' },
    ] as const)
      assert.deepEqual(parseRoute(hrefOf(route)), route);
    assert.deepEqual(parseRoute(''), { view: 'overview' });
    assert.deepEqual(parseRoute('#/nodes/'), { view: 'nodes' });
    assert.deepEqual(parseRoute('#/bogus'), { view: 'missing', hash: '#/bogus' });
    assert.deepEqual(parseRoute('#/nodes/%E0%A4%A'), { view: 'missing', hash: '#/nodes/%E0%A4%A' });
  });

  it('the virtual window covers the viewport plus overscan, clamped to the rows', () => {
    assert.deepEqual(visibleRange(0, 320, 32, 10_000, 5), { start: 0, end: 16 });
    assert.deepEqual(visibleRange(32_000, 320, 32, 10_000, 5), { start: 995, end: 1016 });
    assert.deepEqual(visibleRange(1e9, 320, 32, 10_000, 5), { start: 9994, end: 10_000 });
    assert.deepEqual(visibleRange(0, 320, 32, 0), { start: 0, end: 0 });
  });

  it('banners: master disruption and the breaker from Zone annotations; the leader and whether its lease lapsed', () => {
    const zone = (name: string, annotations: Record<string, string>): Zone => ({
      apiVersion: 'v1',
      kind: 'Zone',
      metadata: { name, uid: name, resourceVersion: '1', creationTimestamp: '2026-11-29T12:00:00.000Z', annotations },
      status: { state: 'FullDisruption', nodes: 1, notReady: 1, evictionRate: 0 },
    });
    const lease = {
      spec: { holderIdentity: 'host_42', leaseDurationSeconds: 15, renewTime: '2026-11-29T12:00:00.000Z' },
    } as Lease;
    const at = Date.parse('2026-11-29T12:00:10.000Z');
    const notes = clusterNotes(
      [
        zone('b', { 'shepherd.io/master-disruption': 'true', 'shepherd.io/lease-circuit-breaker': 'holding: stale' }),
        zone('a', {}),
      ],
      lease,
      at,
    );
    assert.equal(notes.masterDisruption, true);
    assert.equal(notes.breaker, 'holding: stale');
    assert.deepEqual(notes.leader, { holder: 'host_42', renewTime: Date.parse(lease.spec.renewTime), expired: false });
    assert.equal(clusterNotes([], lease, at + 10_000).leader?.expired, true);
    assert.deepEqual(clusterNotes([zone('a', {})], undefined, at), {
      masterDisruption: false,
      breaker: undefined,
      leader: undefined,
    });
  });
});
