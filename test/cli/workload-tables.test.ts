import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deploymentRow } from '../../src/cli/deployment-table.js';
import { runGet, type GetOptions } from '../../src/cli/get.js';
import { nodeCpu, nodeMemory, nodePods } from '../../src/cli/node-table.js';
import { podReady, podRestarts, podStatus } from '../../src/cli/pod-table.js';
import type { Node } from '../../src/core/node.js';
import type { Pod } from '../../src/core/pod.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { flush } from '../support/fake-clock.js';
import { assertGolden, testDeps } from './capture.js';
import { NODES } from './fixtures.js';
import { NOW, PODS, running, wdeployment, wpod } from './workload-fixtures.js';

const get = (resource: GetOptions['resource'], extra: Partial<GetOptions> = {}): GetOptions => ({
  resource,
  names: [],
  output: 'table',
  ...extra,
});

const client = (): FakeApiClient =>
  new FakeApiClient({
    pods: PODS,
    deployments: [wdeployment('web'), wdeployment('api', 'team-a')],
    podAdmission: false,
  });

const byName = (name: string): Pod => PODS.find((p) => p.metadata.name === name) as Pod;

test('pod STATUS follows kubectl: phase, container waiting and terminated reasons, signals, Terminating', () => {
  assert.equal(podStatus(byName('web-5d4f8-a1')), 'Running');
  assert.equal(podStatus(byName('web-5d4f8-b2')), 'CrashLoopBackOff');
  assert.equal(podStatus(byName('web-5d4f8-c3')), 'Pending');
  assert.equal(podStatus(byName('web-5d4f8-d4')), 'Terminating');
  assert.equal(podStatus(byName('job-1')), 'Completed');
  assert.equal(podStatus(byName('batch-2')), 'Signal:9');
  // Without container statuses the phase shows; a pod reason (Evicted, NodeLost) wins over it.
  assert.equal(podStatus(wpod('s', { created: 0, phase: 'Succeeded' })), 'Succeeded');
  assert.equal(podStatus(wpod('f', { created: 0, phase: 'Failed' })), 'Failed');
  assert.equal(
    podStatus(wpod('r', { created: 0, phase: 'Failed', reason: 'ProcessPodsDisabled' })),
    'ProcessPodsDisabled',
  );
  assert.equal(podStatus(wpod('l', { created: 0, reason: 'NodeLost', deleting: 0 })), 'Unknown');
  const exit = wpod('x', {
    created: 0,
    phase: 'Failed',
    containers: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 3 } } }],
  });
  assert.equal(podStatus(exit), 'ExitCode:3');
  // A Completed container beside a running one: Running when the pod is Ready, NotReady when not.
  const sidecar = (ready: boolean): Pod =>
    wpod('c', {
      created: 0,
      containerNames: ['app', 'init'],
      containers: [
        running('app', 0),
        { name: 'init', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
      ],
      ready,
    });
  assert.equal(podStatus(sidecar(true)), 'Running');
  assert.equal(podStatus(sidecar(false)), 'NotReady');
  // The first container's state wins over the later ones'.
  const two = wpod('t', {
    created: 0,
    containerNames: ['a', 'b'],
    containers: [
      { name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      { name: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
    ],
  });
  assert.equal(podStatus(two), 'CrashLoopBackOff');
});

test('pod READY counts ready containers of the spec; RESTARTS sums them with the last restart', () => {
  assert.equal(podReady(byName('web-5d4f8-a1')), '1/1');
  assert.equal(podReady(byName('web-5d4f8-c3')), '0/1');
  assert.equal(podRestarts(byName('web-5d4f8-b2'), NOW), '4 (90s ago)');
  assert.equal(podRestarts(byName('web-5d4f8-a1'), NOW), '0');
});

test('deployment READY is ready/desired replicas; desired defaults to 1', () => {
  const d = wdeployment('web');
  assert.deepEqual(deploymentRow(d, NOW, false, false), ['web', '2/4', '4', '2', '120m']);
  const fresh = { ...d, spec: { ...d.spec, replicas: undefined }, status: {} };
  assert.deepEqual(deploymentRow(fresh, NOW, false, false).slice(1, 4), ['0/1', '0', '0']);
});

test('node PODS, CPU and MEMORY: the reported pod count and allocatable (else capacity) resources', () => {
  const n1 = NODES[0] as Node;
  assert.deepEqual([nodePods(n1), nodeCpu(n1), nodeMemory(n1)], ['3', '3500m', '15.5Gi']);
  const bare = NODES[3] as Node;
  assert.deepEqual([nodePods(bare), nodeCpu(bare), nodeMemory(bare)], ['', '', '']);
  const capacityOnly: Node = { ...bare, status: { capacity: { cpu: '250m', memory: '512Mi' } } };
  assert.deepEqual([nodeCpu(capacityOnly), nodeMemory(capacityOnly)], ['250m', '0.5Gi']);
});

test('get pods: the default namespace, NAME READY STATUS RESTARTS NODE AGE', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('pods')), 0);
  assertGolden('get-pods', d.out.text);
  assert.equal(d.err.text, '');
});

test('get pods -A -o wide: NAMESPACE first, IP and CONTROLLED BY added, every namespace in key order', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('pods', { allNamespaces: true, output: 'wide' })), 0);
  assertGolden('get-pods-all-wide', d.out.text);
});

test('get pods reads page by page, as get nodes does', async () => {
  const c = client();
  const d = testDeps(c);
  assert.equal(await runGet(d, get('pods', { allNamespaces: true })), 0);
  const lists = c.callsOf('pods', 'list');
  assert.ok(lists.length >= 1);
  assert.ok(
    lists.every((call) => call.limit !== undefined),
    'every list asks for a page',
  );
});

test('get pods -n team-a, -l and --field-selector filter on the server', async () => {
  const d = testDeps(client());
  await runGet(d, get('pods', { namespace: 'team-a', noHeaders: true }));
  assert.deepEqual(
    d.out.text
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(/\s+/)[0]),
    ['batch-2'],
  );
  const f = testDeps(client());
  await runGet(f, get('pods', { fieldSelector: 'spec.nodeName=node-2', noHeaders: true }));
  assert.deepEqual(
    f.out.text
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(/\s+/)[0]),
    ['web-5d4f8-b2', 'web-5d4f8-d4'],
  );
});

test('get deployments (and -A -o wide)', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('deployments')), 0);
  assertGolden('get-deployments', d.out.text);
  const w = testDeps(client());
  assert.equal(await runGet(w, get('deployments', { allNamespaces: true, output: 'wide' })), 0);
  assertGolden('get-deployments-all-wide', w.out.text);
});

test('-A is refused with names and for kinds without namespaces', async () => {
  await assert.rejects(runGet(testDeps(client()), get('pods', { allNamespaces: true, names: ['x'] })), /by name/);
  await assert.rejects(runGet(testDeps(client()), get('nodes', { allNamespaces: true })), /pods and deployments/);
});

test('nothing found names the namespace for pods and deployments, as kubectl does', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('deployments', { namespace: 'empty' })), 0);
  assert.equal(d.err.text, 'No resources found in empty namespace.\n');
  const all = testDeps(new FakeApiClient());
  assert.equal(await runGet(all, get('pods', { allNamespaces: true })), 0);
  assert.equal(all.err.text, 'No resources found\n');
});

test('get pods -A -w: the list, then a row per change of any namespace, in the same columns', async () => {
  const c = client();
  const stop = new AbortController();
  const d = testDeps(c, { signal: stop.signal });
  const done = runGet(d, get('pods', { allNamespaces: true, watch: true }));
  await flush();
  assert.equal(d.out.text.split('\n').filter(Boolean).length, 7, 'header and six pods');
  c.put('pods', wpod('late', { created: 0, namespace: 'team-b', phase: 'Pending' }));
  await flush();
  const lines = d.out.text.split('\n').filter(Boolean);
  const header = lines[0] ?? '';
  const row = lines.at(-1) ?? '';
  assert.match(row, /^team-b +late +0\/1 +Pending +0 +<none> +0s$/);
  for (const col of ['NAME', 'READY', 'STATUS', 'RESTARTS', 'NODE', 'AGE']) {
    assert.equal(row[header.search(new RegExp(`\\b${col}\\b`)) - 1], ' ', `${col} lines up`);
  }
  stop.abort();
  assert.equal(await done, 0);
});
