import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeStatus, nextAvailableIn } from '../../../src/controller/deployment/deployment-status.js';
import { podFromTemplate, podName, templateHash } from '../../../src/controller/deployment/pod-template.js';
import { POD_TEMPLATE_HASH_LABEL } from '../../../src/core/deployment.js';
import { seededRandom } from '../../../src/core/random.js';
import { deployment, pod, type PodInput } from '../workloads/fixtures.js';

const NOW = Date.parse('2026-11-29T12:00:00.000Z');
const ago = (s: number): string => new Date(NOW - s * 1000).toISOString();
const OWNER = { name: 'web', uid: 'uid-web' };

function owned(name: string, hash: string, input: PodInput = {}) {
  return pod(name, { owner: OWNER, labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash }, ...input });
}

describe('deployment status counts', () => {
  it('counts replicas, updated, ready, available and unavailable; terminating and finished pods do not count', () => {
    const d = { ...deployment('web', { replicas: 4 }), metadata: { ...deployment('web').metadata, generation: 7 } };
    const pods = [
      owned('a', 'new', { nodeName: 'n1', phase: 'Running', ready: true, readySince: ago(60) }),
      owned('b', 'new', { nodeName: 'n1', phase: 'Running', ready: false }),
      owned('c', 'old', { nodeName: 'n2', phase: 'Running', ready: true, readySince: ago(60) }),
      owned('d', 'new', { nodeName: 'n2', phase: 'Running', ready: true, readySince: ago(60), deleting: true }),
      owned('e', 'new', { nodeName: 'n2', phase: 'Failed' }),
      owned('f', 'new'),
    ];
    assert.deepEqual(computeStatus(d, pods, 'new', NOW), {
      observedGeneration: 7,
      replicas: 4,
      updatedReplicas: 3,
      readyReplicas: 2,
      availableReplicas: 2,
      unavailableReplicas: 2,
    });
  });

  it('a ready pod is available only after minReadySeconds, and the controller is told when to look again', () => {
    const d = deployment('web', { replicas: 2, minReadySeconds: 30 });
    const pods = [
      owned('a', 'h', { nodeName: 'n1', phase: 'Running', ready: true, readySince: ago(31) }),
      owned('b', 'h', { nodeName: 'n1', phase: 'Running', ready: true, readySince: ago(10) }),
    ];
    const status = computeStatus(d, pods, 'h', NOW);
    assert.equal(status.readyReplicas, 2);
    assert.equal(status.availableReplicas, 1);
    assert.equal(status.unavailableReplicas, 1);
    assert.equal(nextAvailableIn(pods, 30, NOW), 20_001);
    assert.equal(nextAvailableIn(pods, 0, NOW), undefined);
  });

  it('during a surge, unavailable counts against the larger of replicas and spec.replicas', () => {
    const d = deployment('web', { replicas: 2 });
    const pods = [
      owned('a', 'old', { nodeName: 'n1', phase: 'Running', ready: true, readySince: ago(60) }),
      owned('b', 'old', { nodeName: 'n1', phase: 'Running', ready: true, readySince: ago(60) }),
      owned('c', 'new'),
    ];
    assert.equal(computeStatus(d, pods, 'new', NOW).unavailableReplicas, 1);
  });
});

describe('pod template', () => {
  it('hashes a template the same way every time, and differently when anything changes', () => {
    const t = deployment('web').spec.template;
    const reordered = { spec: t.spec, metadata: t.metadata };
    assert.equal(templateHash(t), templateHash(reordered));
    assert.match(templateHash(t), /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    const changed = { ...t, spec: { ...t.spec, containers: [{ name: 'app', image: 'nginx:2' }] } };
    assert.notEqual(templateHash(changed), templateHash(t));
  });

  it('names pods <deployment>-<hash>-<5 random characters>, cut as generateName is', () => {
    const random = seededRandom(7);
    assert.match(podName('web', 'abc12', random), /^web-abc12-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const long = podName('x'.repeat(70), 'abc12', random);
    assert.equal(long.length, 63);
    assert.ok(long.startsWith('x'.repeat(58)));
  });

  it('builds the pod: template labels plus the hash label, an owner reference with controller: true', () => {
    const d = deployment('web');
    const p = podFromTemplate(d, 'h1', 'web-h1-bcdfg');
    assert.deepEqual(p.metadata.labels, { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'h1' });
    assert.deepEqual(p.metadata.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true },
    ]);
    assert.equal(p.metadata.namespace, 'default');
    assert.deepEqual(p.spec, d.spec.template.spec);
  });
});
