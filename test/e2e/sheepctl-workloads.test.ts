import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import {
  type Proc,
  runSheepctl,
  SHEPHERD_BIN,
  startProcess,
  startServer,
  type ServerProc,
  tempDir,
} from '../support/processes.js';

// sheepctl's workload commands against a real server with its controllers and one real agent: apply a manifest
// of a Deployment and a Pod, list them, scale, describe, apply again (unchanged, then configured), feed it bad
// documents (each reported, the good one still created), and delete -f.

const DEPLOYMENT = (replicas: number, labels = 'app: web'): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {${labels}}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: app
          image: nginx:1.27
`;
const POD = `apiVersion: v1
kind: Pod
metadata:
  name: solo
spec:
  containers:
    - name: main
      image: busybox:1.36
`;

/** The rows of a table as arrays of cells (columns are separated by at least two spaces). */
function rows(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((l) => l.split(/ {2,}/));
}

describe('sheepctl workloads end to end', { timeout: 120_000 }, () => {
  const dir = tempDir();
  let server: ServerProc;
  let agent: Proc;
  const manifest = `${dir.path}/web.yaml`;
  const sheepctl = (...args: string[]): ReturnType<typeof runSheepctl> =>
    runSheepctl(args, { SHEPHERD_API: server.addr });

  before(async () => {
    server = await startServer([
      '--db',
      `${dir.path}/db.sqlite`,
      '--node-monitor-period',
      '200ms',
      '--node-monitor-grace-period',
      '4s',
      '--log-level',
      'warn',
    ]);
    agent = startProcess(
      SHEPHERD_BIN,
      [
        '--mode',
        'agent',
        '--node-name',
        'node-a',
        '--zone',
        'zone-a',
        '--api-addr',
        server.addr,
        '--lease-duration',
        '2s',
      ],
      { name: 'node-a' },
    );
    await eventually(async () => / Ready /.test((await sheepctl('get', 'nodes', '--no-headers')).stdout), {
      what: 'node-a Ready',
      timeoutMs: 30_000,
    });
  });

  after(async () => {
    await agent?.stop();
    await server?.stop();
    dir.cleanup();
  });

  test('apply a Deployment and a Pod from one file; get pods and deployments show them running', async () => {
    writeFileSync(manifest, `${DEPLOYMENT(2)}---\n${POD}`);
    const applied = await sheepctl('apply', '-f', manifest);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.stdout, 'deployment/web created\npod/solo created\n');
    await eventually(
      async () => {
        const r = await sheepctl('get', 'pods', '--no-headers');
        const running = rows(r.stdout).filter((c) => c[2] === 'Running' && c[1] === '1/1' && c[4] === 'node-a');
        return running.length === 3;
      },
      { what: 'three pods Running on node-a', timeoutMs: 30_000 },
    );
    const pods = await sheepctl('get', 'pods');
    assert.deepEqual(rows(pods.stdout)[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'NODE', 'AGE']);
    const wide = await sheepctl('get', 'pods', '-A', '-o', 'wide', '-l', 'app=web');
    const header = rows(wide.stdout)[0];
    assert.deepEqual(header, [
      'NAMESPACE',
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'NODE',
      'AGE',
      'IP',
      'CONTROLLED BY',
    ]);
    assert.equal(rows(wide.stdout).length, 3, 'two pods of web, selected by label');
    assert.ok(
      rows(wide.stdout)
        .slice(1)
        .every((c) => c[0] === 'default' && c[8] === 'Deployment/web'),
    );
    await eventually(async () => /^web +2\/2 +2 +2 /m.test((await sheepctl('get', 'deployments')).stdout), {
      what: 'web 2/2 available',
      timeoutMs: 30_000,
    });
    await eventually(async () => /^node-a +Ready +zone-a +3 +\d+m /m.test((await sheepctl('nodes')).stdout), {
      what: 'node-a reporting 3 pods and its CPU',
      timeoutMs: 30_000,
    });
  });

  test('scale, then describe the deployment and a pod with its events', async () => {
    const scaled = await sheepctl('scale', 'deployment', 'web', '--replicas', '3');
    assert.equal(scaled.stdout, 'deployment/web scaled\n');
    await eventually(async () => /^web +3\/3 +3 +3 /m.test((await sheepctl('get', 'deploy')).stdout), {
      what: 'web 3/3',
      timeoutMs: 30_000,
    });
    const d = await sheepctl('describe', 'deployment', 'web');
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^Replicas: +3 desired \| 3 updated \| 3 total \| 3 available \| 0 unavailable$/m);
    assert.match(d.stdout, /^StrategyType: +RollingUpdate$/m);
    assert.equal((d.stdout.match(/^ {2}web-\S+ +1\/1 +Running /gm) ?? []).length, 3, d.stdout);
    assert.match(d.stdout, /ScalingReplicaSet .*to 3/);
    const p = await sheepctl('describe', 'pod', 'solo');
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /^Node: +node-a\//m);
    assert.match(p.stdout, /^Status: +Running$/m);
    assert.match(p.stdout, /^ {4}Restart Count: +0$/m);
    assert.match(p.stdout, /node\.kubernetes\.io\/unreachable:NoExecute op=Exists for 300s/);
    // The scheduler's Event names the pod's namespace, and describe finds it.
    assert.match(p.stdout, /Scheduled +\S+ +scheduler +Successfully assigned default\/solo to node-a/);
  });

  test('apply again: unchanged (the scaled replicas stay); a changed manifest is configured', async () => {
    const again = await sheepctl('apply', '-f', manifest);
    assert.equal(again.stdout, 'deployment/web unchanged\npod/solo unchanged\n');
    writeFileSync(manifest, `${DEPLOYMENT(2, 'app: web, tier: front')}---\n${POD}`);
    const changed = await sheepctl('apply', '-f', manifest);
    assert.equal(changed.code, 0, changed.stderr);
    assert.equal(changed.stdout, 'deployment/web configured\npod/solo unchanged\n');
    const yaml = await sheepctl('get', 'deployment', 'web', '-o', 'json');
    const web = JSON.parse(yaml.stdout) as { metadata: { labels: Record<string, string> }; spec: { replicas: number } };
    assert.deepEqual(web.metadata.labels, { app: 'web', tier: 'front' });
    assert.equal(web.spec.replicas, 3, "replicas did not change in the manifest: scale's 3 stays");
  });

  test('bad documents are reported by file and number; the good one is created; nothing else changes', async () => {
    const bad = `${dir.path}/bad.yaml`;
    writeFileSync(
      bad,
      `apiVersion: v1\nkind: Service\nmetadata: {name: svc}\n---\n${POD.replace('solo', 'typo').replace('containers', 'containerz')}---\n${POD.replace('solo', 'extra')}`,
    );
    const r = await sheepctl('apply', '-f', bad);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, 'pod/extra created\n');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[0] ?? '', /bad\.yaml, document 1: unknown kind "Service": the API serves Node, .*Deployment/);
    assert.match(lines[1] ?? '', /bad\.yaml, document 2 \(pod\/typo\): Pod "typo" is invalid: .*containerz/);
    const pods = await sheepctl('get', 'pods', '-o', 'name');
    assert.match(pods.stdout, /^pod\/extra$/m);
    assert.match(pods.stdout, /^pod\/solo$/m);
    assert.doesNotMatch(pods.stdout, /typo/);
    const deleted = await sheepctl('delete', '-f', bad, '--grace-period', '0');
    assert.equal(deleted.code, 1, 'two documents cannot be deleted');
    assert.equal(deleted.stdout, 'pod/extra deleted\n');
  });

  test('delete -f removes the Deployment (its pods with it) and the Pod', async () => {
    const r = await sheepctl('delete', '-f', manifest);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'deployment/web deleted\npod/solo deleted\n');
    await eventually(async () => (await sheepctl('get', 'pods', '-A', '-o', 'name')).stdout === '', {
      what: 'every pod gone',
      timeoutMs: 30_000,
    });
    const none = await sheepctl('get', 'deployments');
    assert.equal(none.stderr, 'No resources found in default namespace.\n');
  });
});
