import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appliedObject, LAST_APPLIED_ANNOTATION, mergeApplied, withLastApplied } from '../../src/cli/apply-merge.js';
import { documentLabel, parseManifest, type ManifestDocument } from '../../src/cli/manifest.js';

const summary = (docs: ManifestDocument[]): string[] =>
  docs.map((d) => ('error' in d ? `${d.index}: ${d.error}` : `${d.index}: ${d.resource}/${d.name}`));

test('YAML documents separated by ---, in order; empty documents skipped but counted; numbered from 1', () => {
  const text = `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 2}
---
# only a comment
---
apiVersion: v1
kind: Pod
metadata:
  name: solo
  namespace: team-a
spec:
  containers: [{name: app}]
`;
  const docs = parseManifest(text, 'web.yaml');
  assert.deepEqual(summary(docs), ['1: deployments/web', '3: pods/solo']);
  const pod = docs[1] as Extract<ManifestDocument, { object: unknown }>;
  assert.deepEqual(pod.object['metadata'], { name: 'solo', namespace: 'team-a' });
  assert.equal(documentLabel(pod), 'web.yaml, document 3 (pod/solo)');
});

test('JSON is read as well, and a List stands for its items', () => {
  const json = JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      { kind: 'Node', metadata: { name: 'n1' } },
      { apiVersion: 'v1', kind: 'Zone', metadata: { name: 'z' } },
    ],
  });
  assert.deepEqual(summary(parseManifest(json, 'list.json')), ['1: nodes/n1', '1: zones/z']);
  assert.deepEqual(summary(parseManifest('{"kind":"Pod","metadata":{"name":"p"},"spec":{}}', 'p.json')), ['1: pods/p']);
});

test('a document that cannot be an object is an error entry naming why; the others are kept', () => {
  const text = `kind: Service
metadata: {name: svc}
---
apiVersion: v1
kind: Deployment
metadata: {name: web}
---
kind: Pod
metadata: {}
---
- just
- a list
---
metadata: {name: nokind}
---
key: [unclosed
---
kind: Pod
metadata: {name: ok}
`;
  const docs = parseManifest(text, 'bad.yaml');
  assert.deepEqual(summary(docs), [
    '1: unknown kind "Service": the API serves Node, Lease, Event, Zone, Pod, Deployment, Verdict',
    '2: apiVersion "v1" does not serve kind Deployment: use apps/v1',
    '3: Pod has no metadata.name',
    '4: a document must be an object with apiVersion, kind and metadata',
    '5: no kind: set kind to one of Node, Lease, Event, Zone, Pod, Deployment, Verdict',
    (summary([docs[5] as ManifestDocument])[0] as string).startsWith('6: not valid YAML or JSON: ')
      ? (summary([docs[5] as ManifestDocument])[0] as string)
      : 'document 6 should be a syntax error',
    '7: pods/ok',
  ]);
  assert.ok(!(summary([docs[5] as ManifestDocument])[0] as string).includes('\n'), 'one line per error');
  assert.equal(documentLabel(docs[0] as ManifestDocument), 'bad.yaml, document 1');
});

test('mergeApplied: unchanged since the last apply keeps the stored value; a change wins; a dropped field goes', () => {
  const current = { replicas: 5, strategy: { type: 'RollingUpdate' }, minReadySeconds: 3 };
  const last = { replicas: 2, minReadySeconds: 3 };
  // replicas unchanged in the manifest (scale set 5): kept; strategy (a server default) untouched.
  assert.deepEqual(mergeApplied(current, last, { replicas: 2, minReadySeconds: 3 }), current);
  // replicas changed in the manifest: written; minReadySeconds dropped from it: removed.
  assert.deepEqual(mergeApplied(current, last, { replicas: 4 }), { replicas: 4, strategy: { type: 'RollingUpdate' } });
  // Lists are replaced whole when changed, kept when the manifest did not change them.
  const stored = { tolerations: ['mine', 'server-default'] };
  assert.deepEqual(mergeApplied(stored, { tolerations: ['mine'] }, { tolerations: ['mine'] }), stored);
  assert.deepEqual(mergeApplied(stored, { tolerations: ['mine'] }, { tolerations: ['other'] }), {
    tolerations: ['other'],
  });
  // Never applied: a stored list the manifest's is the start of is kept; another is replaced.
  assert.deepEqual(mergeApplied(stored, undefined, { tolerations: ['mine'] }), stored);
  assert.deepEqual(mergeApplied(stored, undefined, { tolerations: ['server-default'] }), {
    tolerations: ['server-default'],
  });
});

test('mergeApplied replaces a nested object whose type changes (a Deployment strategy), as retainKeys does', () => {
  const current = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } };
  assert.deepEqual(mergeApplied(current, { strategy: {} }, { strategy: { type: 'Recreate' } }), {
    strategy: { type: 'Recreate' },
  });
  assert.deepEqual(mergeApplied(current, undefined, { strategy: { type: 'RollingUpdate' } }), current);
});

test('appliedObject keeps resourceVersion, status and server metadata; equal to the stored object when nothing changed', () => {
  const manifest = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'app' }] } } },
  };
  const created = withLastApplied(manifest);
  const stored = {
    ...created,
    metadata: { ...(created['metadata'] as object), uid: 'u', resourceVersion: '7', generation: 1 },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'app' }], restartPolicy: 'Always' } } },
    status: { replicas: 2 },
  };
  assert.deepEqual(appliedObject(stored, manifest), stored);
  const relabelled = { ...manifest, metadata: { ...manifest.metadata, labels: { app: 'web', tier: 'front' } } };
  const next = appliedObject(stored, relabelled) as typeof stored & { metadata: Record<string, unknown> };
  assert.deepEqual(next.metadata['labels'], { app: 'web', tier: 'front' });
  assert.equal(next.metadata['resourceVersion'], '7');
  assert.deepEqual(next.status, { replicas: 2 });
  assert.equal(next.spec.template.spec.restartPolicy, 'Always', 'a server default stays');
  const recorded = JSON.parse((next.metadata['annotations'] as Record<string, string>)[LAST_APPLIED_ANNOTATION] ?? '');
  assert.deepEqual(recorded.metadata.labels, { app: 'web', tier: 'front' });
  assert.equal(recorded.metadata.annotations, undefined, 'the record does not hold itself');
});
