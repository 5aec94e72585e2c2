import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runDescribeDeployment } from '../../src/cli/describe-deployment.js';
import { formatToleration, runDescribePod } from '../../src/cli/describe-pod.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { assertGolden, testDeps } from './capture.js';
import { PODS, wdeployment, WORKLOAD_EVENTS } from './workload-fixtures.js';

const client = (): FakeApiClient =>
  new FakeApiClient({
    pods: PODS,
    deployments: [{ ...wdeployment('web'), metadata: { ...wdeployment('web').metadata, uid: 'uid-web' } }],
    events: WORKLOAD_EVENTS,
    podAdmission: false,
  });

test('describe pod: node, status, owner, containers with restarts, conditions, tolerations, its own events', async () => {
  const d = testDeps(client());
  assert.equal(await runDescribePod(d, 'web-5d4f8-a1'), 0);
  assertGolden('describe-pod', d.out.text);
  // The Event about the same-named pod of team-a is not shown; the one without a namespace (older servers) is.
  assert.doesNotMatch(d.out.text, /team-a\/web-5d4f8-a1/);
  assert.match(d.out.text, /TaintManagerEvictionCancelled/);
});

test('describe pod of a crash-looping container shows its waiting reason, last state and restart count', async () => {
  const d = testDeps(client());
  assert.equal(await runDescribePod(d, 'web-5d4f8-b2'), 0);
  assertGolden('describe-pod-crashloop', d.out.text);
});

test('describe pod -n: a pod of another namespace; a missing pod names the namespace', async () => {
  const d = testDeps(client());
  assert.equal(await runDescribePod(d, 'batch-2', 'team-a'), 0);
  assert.match(d.out.text, /^Namespace: +team-a$/m);
  assert.match(d.out.text, /^Status: +Signal:9$/m);
  await assert.rejects(runDescribePod(testDeps(client()), 'batch-2'), /pod "batch-2" not found in namespace default/);
});

test('describe deployment: replicas line, strategy, template, conditions, the pods it owns, its events', async () => {
  const d = testDeps(client());
  assert.equal(await runDescribeDeployment(d, 'web'), 0);
  assertGolden('describe-deployment', d.out.text);
  // job-1 carries app=web but no owner reference to this Deployment: not listed.
  assert.doesNotMatch(d.out.text, /job-1/);
});

test('tolerations print as kubectl prints them', () => {
  assert.equal(
    formatToleration({
      key: 'node.kubernetes.io/unreachable',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 300,
    }),
    'node.kubernetes.io/unreachable:NoExecute op=Exists for 300s',
  );
  assert.equal(formatToleration({ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }), 'dedicated=gpu:NoSchedule');
  assert.equal(formatToleration({ operator: 'Exists' }), 'op=Exists');
});
