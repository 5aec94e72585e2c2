import assert from 'node:assert/strict';
import { test } from 'node:test';
import { main } from '../../src/main/sheepctl.js';
import { node } from '../store/fixtures.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { Capture } from './capture.js';
import { NOW } from './fixtures.js';

// The workload commands through the command line (flags, help, exit codes); their output is tested beside them.

async function run(
  argv: string[],
  client: FakeApiClient,
  stdin = '',
): Promise<{ code: number; out: string; err: string; connected: number }> {
  const stdout = new Capture();
  const stderr = new Capture();
  let connected = 0;
  const code = await main(argv, {
    stdout,
    stderr,
    env: {},
    now: () => NOW,
    signal: new AbortController().signal,
    stdin: async () => stdin,
    createClient: () => {
      connected++;
      return client;
    },
  });
  return { code, out: stdout.text, err: stderr.text, connected };
}

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-a}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app}]}
---
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: team-a}
spec: {containers: [{name: app}]}
`;

test('help: -n names pods and deployments, -A lists every namespace, the new commands are listed', async () => {
  const c = new FakeApiClient();
  const root = await run(['--help'], c);
  for (const word of ['create', 'apply', 'scale', 'apply -f web.yaml', 'get pods -A']) {
    assert.ok(root.out.includes(word), `help mentions ${word}`);
  }
  for (const cmd of ['get', 'pods', 'delete']) {
    const help = await run([cmd, '--help'], c);
    assert.match(help.out, /-n, --namespace <namespace> +namespace of pods and deployments/, cmd);
    assert.doesNotMatch(help.out, /lease namespace:/, cmd);
  }
  assert.match((await run(['get', '--help'], c)).out, /-A, --all-namespaces/);
  assert.match((await run(['delete', '--help'], c)).out, /--grace-period <seconds>/);
  assert.match((await run(['apply', '--help'], c)).out, /document number/);
  assert.equal(root.connected, 0);
});

test('apply -f - then get pods -A, get deploy -n, scale, describe, delete -f', async () => {
  const c = new FakeApiClient({ now: () => NOW });
  const applied = await run(['apply', '-f', '-'], c, MANIFEST);
  assert.equal(applied.code, 0, applied.err);
  assert.equal(applied.out, 'deployment/web created\npod/solo created\n');
  const pods = await run(['get', 'pods', '-A'], c);
  assert.match(pods.out, /^NAMESPACE +NAME +READY +STATUS +RESTARTS +NODE +AGE$/m);
  assert.match(pods.out, /^team-a +solo +0\/1 +Pending +0 +<none> +0s$/m);
  const deploy = await run(['deploy', '-n', 'team-a'], c);
  assert.match(deploy.out, /^web +0\/2 +0 +0 +0s$/m);
  const scaled = await run(['scale', 'deploy', 'web', '--replicas', '3', '-n', 'team-a'], c);
  assert.equal(scaled.out, 'deployment/web scaled\n');
  assert.equal((await c.deployments('team-a').get('web')).spec.replicas, 3);
  const described = await run(['describe', 'deployment', 'web', '-n', 'team-a'], c);
  assert.match(described.out, /^Replicas: +3 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m);
  const pod = await run(['describe', 'po', 'solo', '-n', 'team-a'], c);
  assert.match(pod.out, /^Node: +<none> \(not scheduled\)$/m);
  const deleted = await run(['delete', '-f', '-'], c, MANIFEST);
  assert.equal(deleted.out, 'deployment/web deleted\npod/solo deleted\n');
});

test('delete pod NAME --grace-period N reaches the API; usage errors are explained', async () => {
  const c = new FakeApiClient({ now: () => NOW });
  c.put('nodes', node('node-1'));
  await run(['apply', '-f', '-'], c, MANIFEST);
  await c.pods('team-a').bind('solo', 'node-1');
  const graceful = await run(['delete', 'pod', 'solo', '-n', 'team-a', '--grace-period', '5'], c);
  assert.equal(graceful.out, 'pod "solo" deleted\n');
  assert.equal((await c.pods('team-a').get('solo')).metadata.deletionGracePeriodSeconds, 5);
  for (const [argv, message] of [
    [['delete'], /name what to delete: RESOURCE NAME\.\.\. or -f FILE/],
    [['delete', 'pod', 'x', '-f', 'a.yaml'], /either -f FILE or RESOURCE NAME/],
    [['delete', 'pod', 'x', '--grace-period', 'soon'], /must be a whole number/],
    [['scale', 'deploy', 'web'], /--replicas/],
    [['scale', 'pod', 'web', '--replicas', '2'], /scale supports deployment/],
    [['describe', 'zone', 'z'], /describe supports node, pod and deployment/],
    [['get', 'nodes', '-A'], /-A \(all namespaces\) lists pods and deployments/],
    [['apply'], /-f, --filename/],
  ] as const) {
    const r = await run([...argv], c);
    assert.equal(r.code, 1, argv.join(' '));
    assert.match(r.err, message, argv.join(' '));
  }
});

test('apply reports each failed document and exits 1; nothing else is lost', async () => {
  const c = new FakeApiClient({ now: () => NOW });
  const r = await run(['apply', '-f', '-'], c, `kind: Service\nmetadata: {name: x}\n---\n${MANIFEST}`);
  assert.equal(r.code, 1);
  assert.equal(r.out, 'deployment/web created\npod/solo created\n');
  assert.equal(
    r.err,
    'sheepctl: stdin, document 1: unknown kind "Service": the API serves Node, Lease, Event, Zone, Pod, Deployment, Verdict\n',
  );
});
