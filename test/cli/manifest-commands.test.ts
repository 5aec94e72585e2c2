import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LAST_APPLIED_ANNOTATION } from '../../src/cli/apply-merge.js';
import { runDelete } from '../../src/cli/delete.js';
import { runManifests, type ManifestAction } from '../../src/cli/manifest-commands.js';
import { runScale } from '../../src/cli/scale.js';
import { ConflictError, InvalidError } from '../../src/core/errors.js';
import { node } from '../store/fixtures.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { testDeps, type TestDeps } from './capture.js';
import { NOW } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'sheepctl-manifests-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const deployment = (replicas: number, extraLabel = ''): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web${extraLabel}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
`;
const pod = `apiVersion: v1
kind: Pod
metadata: {name: solo}
spec:
  containers: [{name: main, command: [sleep, "3600"]}]
`;
const WEB = file('web.yaml', `${deployment(2)}---\n${pod}`);

const run = (d: TestDeps, action: ManifestAction, files: string[], namespace?: string): Promise<number> =>
  runManifests(d, action, { files, namespace });

function fresh(): FakeApiClient {
  return new FakeApiClient({ now: () => NOW });
}

test('apply creates, then is unchanged; the pod keeps the tolerations the server added', async () => {
  const c = fresh();
  const d = testDeps(c);
  assert.equal(await run(d, 'apply', [WEB]), 0);
  assert.equal(d.out.text, 'deployment/web created\npod/solo created\n');
  const stored = await c.pods('default').get('solo');
  assert.equal(stored.spec.tolerations?.length, 2, 'the server added the default tolerations');
  const again = testDeps(c);
  assert.equal(await run(again, 'apply', [WEB]), 0);
  assert.equal(again.out.text, 'deployment/web unchanged\npod/solo unchanged\n');
  assert.equal(c.callsOf('pods', 'update').length, 0);
});

test('apply after scale keeps the scaled replicas; a changed manifest is configured', async () => {
  const c = fresh();
  await run(testDeps(c), 'apply', [WEB]);
  const s = testDeps(c);
  assert.equal(await runScale(s, 'web', 5), 0);
  assert.equal(s.out.text, 'deployment/web scaled\n');
  const d = testDeps(c);
  await run(d, 'apply', [WEB]);
  assert.match(d.out.text, /^deployment\/web unchanged$/m);
  assert.equal((await c.deployments('default').get('web')).spec.replicas, 5);
  const changed = file('web-3.yaml', deployment(3, ', tier: front'));
  const e = testDeps(c);
  assert.equal(await run(e, 'apply', [changed]), 0);
  assert.equal(e.out.text, 'deployment/web configured\n');
  const web = await c.deployments('default').get('web');
  assert.equal(web.spec.replicas, 3);
  assert.deepEqual(web.metadata.labels, { app: 'web', tier: 'front' });
  assert.equal(web.spec.strategy?.type, 'RollingUpdate', 'server defaults stay');
});

test('apply and scale retry a write lost to a concurrent one (409 Conflict) on a fresh read', async () => {
  const c = fresh();
  await run(testDeps(c), 'apply', [WEB]);
  c.failNext('deployments', 'update', new ConflictError('deployments', 'web'), 2);
  const d = testDeps(c);
  assert.equal(await run(d, 'apply', [file('web-4.yaml', deployment(4))]), 0);
  assert.equal(d.out.text, 'deployment/web configured\n');
  assert.equal(c.callsOf('deployments', 'update').length, 3);
  c.failNext('deployments', 'update', new ConflictError('deployments', 'web'));
  assert.equal(await runScale(testDeps(c), 'web', 1), 0);
  assert.equal((await c.deployments('default').get('web')).spec.replicas, 1);
});

test('a bad document is reported with its file and number; the others go through; exit code 1', async () => {
  const c = fresh();
  const bad = file('bad.yaml', `kind: Service\nmetadata: {name: svc}\n---\n${pod}---\n${deployment(1)}`);
  // What the server answers for an unknown field (the e2e test sends a real one).
  c.failNext(
    'pods',
    'create',
    new InvalidError('Pod "solo" is invalid: spec.containerz: unknown field "containerz"', [
      { field: 'spec.containerz', message: 'unknown field "containerz"' },
    ]),
  );
  const d = testDeps(c);
  assert.equal(await run(d, 'apply', [bad]), 1);
  assert.equal(d.out.text, 'deployment/web created\n');
  const errors = d.err.text.trim().split('\n');
  assert.equal(errors.length, 2);
  assert.match(errors[0] ?? '', /^sheepctl: .*bad\.yaml, document 1: unknown kind "Service": the API serves Node, /);
  assert.match(errors[1] ?? '', /^sheepctl: .*bad\.yaml, document 2 \(pod\/solo\): .*containerz/);
  assert.equal(c.data.pods.size, 0);
});

test('create refuses an object that exists; delete -f deletes in file order and reports the missing', async () => {
  const c = fresh();
  assert.equal(await run(testDeps(c), 'create', [WEB]), 0);
  const d = testDeps(c);
  assert.equal(await run(d, 'create', [WEB]), 1);
  assert.match(d.err.text, /document 1 \(deployment\/web\): .*already exists/);
  assert.match(d.err.text, /document 2 \(pod\/solo\): .*already exists/);
  const del = testDeps(c);
  assert.equal(await run(del, 'delete', [WEB]), 0);
  assert.equal(del.out.text, 'deployment/web deleted\npod/solo deleted\n');
  const again = testDeps(c);
  assert.equal(await run(again, 'delete', [WEB]), 1);
  assert.match(again.err.text, /document 2 \(pod\/solo\): .*not found/);
});

test('-f - reads standard input; -n places objects that name no namespace and refuses a mismatch', async () => {
  const c = fresh();
  const d = testDeps(c, { stdin: async () => pod });
  assert.equal(await run(d, 'apply', ['-'], 'team-a'), 0);
  assert.equal(d.out.text, 'pod/solo created\n');
  assert.equal((await c.pods('team-a').get('solo')).metadata.namespace, 'team-a');
  const own = testDeps(c, { stdin: async () => pod.replace('{name: solo}', '{name: solo, namespace: team-b}') });
  assert.equal(await run(own, 'apply', ['-'], 'team-a'), 1);
  assert.match(own.err.text, /stdin, document 1 \(pod\/solo\): the namespace of the object \(team-b\) does not match/);
});

test('a directory stands for its manifest files in name order', async () => {
  const sub = join(dir, 'many');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(sub);
  writeFileSync(join(sub, 'b-pod.yaml'), pod);
  writeFileSync(join(sub, 'a-web.json'), JSON.stringify({ kind: 'Node', metadata: { name: 'n9' } }));
  writeFileSync(join(sub, 'notes.txt'), 'not a manifest');
  const d = testDeps(fresh());
  assert.equal(await run(d, 'create', [sub]), 0);
  assert.equal(d.out.text, 'node/n9 created\npod/solo created\n');
});

test('delete pod --grace-period 0 removes a bound pod at once; without it the deletion is graceful', async () => {
  const c = fresh();
  await run(testDeps(c), 'apply', [WEB]);
  c.put('nodes', node('node-1'));
  await c.pods('default').bind('solo', 'node-1');
  const d = testDeps(c);
  assert.equal(await runDelete(d, 'pods', ['solo'], undefined), 0);
  assert.equal(d.out.text, 'pod "solo" deleted\n');
  assert.ok((await c.pods('default').get('solo')).metadata.deletionTimestamp, 'graceful: marked, not gone');
  assert.equal(await runDelete(testDeps(c), 'pods', ['solo'], undefined, 0), 0);
  await assert.rejects(c.pods('default').get('solo'), /not found/);
});

test('a manifest too large for the last-applied record: apply refuses it, create writes it without the record', async () => {
  const big = 'x'.repeat(30 * 1024);
  const text = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'big' },
    spec: {
      containers: [
        {
          name: 'app',
          env: [
            { name: 'A', value: big },
            { name: 'B', value: big },
            { name: 'C', value: big },
          ],
        },
      ],
    },
  });
  const c = fresh();
  const applied = testDeps(c, { stdin: async () => text });
  assert.equal(await run(applied, 'apply', ['-']), 1);
  assert.match(applied.err.text, /stdin, document 1 \(pod\/big\): too large to apply: .* more than the 64 KiB/);
  const created = testDeps(c, { stdin: async () => text });
  assert.equal(await run(created, 'create', ['-']), 0);
  assert.equal((await c.pods('default').get('big')).metadata.annotations, undefined);
  // A small one carries the record.
  await run(testDeps(c), 'create', [WEB]);
  assert.match((await c.pods('default').get('solo')).metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '', /"solo"/);
});
