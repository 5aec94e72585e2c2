import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { runGet, type GetOptions } from '../../src/cli/get.js';
import { assertGolden, testDeps } from './capture.js';
import { fixtureClient as client, NODES, ZONES, zone } from './fixtures.js';

const get = (resource: GetOptions['resource'], extra: Partial<GetOptions> = {}): GetOptions => ({
  resource,
  names: [],
  output: 'table',
  ...extra,
});

test('get nodes: STATUS, ZONE, short TAINTS, LAST HEARTBEAT from the newer of lease and Ready heartbeat', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('nodes')), 0);
  assertGolden('get-nodes', d.out.text);
  assert.equal(d.err.text, '');
});

test('get nodes -o wide adds version, os/arch, lease holder and duration, addresses and full taints', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('nodes', { output: 'wide' })), 0);
  assertGolden('get-nodes-wide', d.out.text);
});

test('get nodes -l filters by label; --no-headers drops the header', async () => {
  const d = testDeps(client());
  await runGet(d, get('nodes', { labelSelector: 'topology.kubernetes.io/zone=zone-a', noHeaders: true }));
  assert.deepEqual(
    d.out.text.split('\n').map((l) => l.split(/\s+/)[0]),
    ['node-1', 'node-2', ''],
  );
});

test('get events: newest first, OBJECT as kind/name, COUNT', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('events')), 0);
  assertGolden('get-events', d.out.text);
});

test('get events with a type filter and a field selector', async () => {
  const d = testDeps(client());
  await runGet(d, get('events', { types: ['Warning'], fieldSelector: 'involvedObject.name=node-2' }));
  const reasons = d.out.text
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s{3,}/)[2]);
  assert.deepEqual(reasons, ['NodeTainted', 'NodeNotReady']);
});

test('get zones: table, then the controller leader from the leader Lease', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('zones')), 0);
  assertGolden('get-zones', d.out.text);
});

test('get zones explains master disruption and a holding circuit breaker; leader from annotation without a Lease', async () => {
  const c = client({
    zones: [
      zone(
        'zone-a',
        { state: 'FullDisruption', nodes: 3, notReady: 3, evictionRate: 0 },
        {
          'shepherd.io/master-disruption': 'true',
          'shepherd.io/lease-circuit-breaker': 'lease node-lease/node-7 cached at resourceVersion 812, live 840',
          'shepherd.io/controller-leader': 'other-host_7',
        },
      ),
      zone('zone-b', { state: 'FullDisruption', nodes: 60, notReady: 60, evictionRate: 0 }),
    ],
  });
  const d = testDeps(c);
  await runGet(d, get('zones'));
  assertGolden('get-zones-disrupted', d.out.text);
});

test('get leases and get leases -n shepherd-system', async () => {
  const d = testDeps(client());
  await runGet(d, get('leases'));
  await runGet(d, get('leases', { namespace: 'shepherd-system', output: 'wide' }));
  assertGolden('get-leases', d.out.text);
});

test('-o json and -o yaml parse back to the listed objects, in a kubectl List', async () => {
  for (const output of ['json', 'yaml'] as const) {
    const d = testDeps(client());
    await runGet(d, get('nodes', { output }));
    const parsed = output === 'json' ? JSON.parse(d.out.text) : parseYaml(d.out.text);
    assert.deepEqual(parsed, { apiVersion: 'v1', kind: 'List', items: NODES, metadata: { resourceVersion: '100' } });
    assert.deepEqual(Object.keys(parsed), ['apiVersion', 'kind', 'items', 'metadata']);
  }
});

test('-o json|yaml with one NAME prints that object alone; with two, a List', async () => {
  for (const output of ['json', 'yaml'] as const) {
    const d = testDeps(client());
    await runGet(d, get('nodes', { output, names: ['node-2'] }));
    const parsed = output === 'json' ? JSON.parse(d.out.text) : parseYaml(d.out.text);
    assert.deepEqual(parsed, NODES[1]);
  }
  const d = testDeps(client());
  await runGet(d, get('zones', { output: 'json', names: ['zone-a', 'zone-b'] }));
  assert.deepEqual(JSON.parse(d.out.text).items, [ZONES[1], ZONES[2]]);
});

test('-o name prints resource/name lines', async () => {
  const d = testDeps(client());
  await runGet(d, get('nodes', { output: 'name' }));
  assert.equal(d.out.text, 'node/node-1\nnode/node-2\nnode/node-3\nnode/node-4\n');
  const z = testDeps(client());
  await runGet(z, get('zones', { output: 'name', names: ['zone-b'] }));
  assert.equal(z.out.text, 'zone/zone-b\n');
});

test('get NAME that does not exist: the found ones print, each missing one is named, exit 1', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('nodes', { names: ['node-1', 'ghost'] })), 1);
  assert.match(d.out.text, /^NAME .*\nnode-1 /);
  assert.equal(d.err.text, 'sheepctl: node "ghost" not found\n');
});

test('an empty list prints "No resources found" to stderr and exits 0; json still prints an empty List', async () => {
  const d = testDeps(client({}));
  assert.equal(await runGet(d, get('nodes')), 0);
  assert.equal(d.out.text, '');
  assert.equal(d.err.text, 'No resources found\n');
  const j = testDeps(client({}));
  await runGet(j, get('events', { output: 'json' }));
  assert.deepEqual(JSON.parse(j.out.text).items, []);
});

test('colour only the STATUS and TYPE words, and only when asked', async () => {
  const d = testDeps(client(), { colour: true });
  await runGet(d, get('nodes'));
  const lines = d.out.text.split('\n');
  assert.match(lines[1] ?? '', /^node-1 {3}\u001b\[32mReady\u001b\[39m {25}zone-a/);
  assert.match(lines[2] ?? '', /\u001b\[33mUnknown\u001b\[39m/);
  assert.match(lines[3] ?? '', /\u001b\[31mNotReady,SchedulingDisabled\u001b\[39m/);
  // Nothing else is coloured: removing the codes gives the plain table.
  const plain = testDeps(client());
  await runGet(plain, get('nodes'));
  assert.equal(d.out.text.replace(/\u001b\[\d+m/g, ''), plain.out.text);
  const e = testDeps(client(), { colour: true });
  await runGet(e, get('events'));
  assert.match(e.out.text, /\u001b\[33mWarning\u001b\[39m/);
  assert.doesNotMatch(e.out.text, /\u001b\[\d+mNormal/);
});
