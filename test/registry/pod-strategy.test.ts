import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConflictError } from '../../src/core/errors.js';
import type { Node } from '../../src/core/node.js';
import type { Pod, PodSpec, Toleration } from '../../src/core/pod.js';
import { nextGeneration, withDeploymentDefaults } from '../../src/registry/deployment-strategy.js';
import {
  admitPodSpec,
  bindPod,
  planPodDeletion,
  podSpecUpdateProblems,
  podStatusUpdateProblems,
} from '../../src/registry/pod-strategy.js';
import { deployment, node, pod } from '../store/fixtures.js';

const ADMISSION = { notReadyTolerationSeconds: 300, unreachableTolerationSeconds: 60 };
const NOT_READY: Toleration = {
  key: 'node.kubernetes.io/not-ready',
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: 300,
};
const UNREACHABLE: Toleration = { ...NOT_READY, key: 'node.kubernetes.io/unreachable', tolerationSeconds: 60 };
const NOW = Date.parse('2026-11-29T12:00:00.000Z');
const spec = (tolerations?: Toleration[]): PodSpec => ({
  containers: [{ name: 'c' }],
  ...(tolerations === undefined ? {} : { tolerations }),
});

describe('admission: DefaultTolerationSeconds', () => {
  const cases: Array<[string, Toleration[] | undefined, Toleration[]]> = [
    ['none: both added', undefined, [NOT_READY, UNREACHABLE]],
    [
      'not-ready tolerated forever: only unreachable added',
      [{ ...NOT_READY, tolerationSeconds: undefined } as never],
      [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }, UNREACHABLE],
    ],
    [
      'an empty key with no effect tolerates everything: nothing added',
      [{ operator: 'Exists' }],
      [{ operator: 'Exists' }],
    ],
    [
      'a NoSchedule toleration of not-ready does not count',
      [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }],
      [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }, NOT_READY, UNREACHABLE],
    ],
    [
      'a key-only toleration of unreachable (any effect) counts',
      [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }],
      [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }, NOT_READY],
    ],
  ];
  for (const [name, given, want] of cases) {
    it(name, () => {
      const clean = given?.map((t) => JSON.parse(JSON.stringify(t)) as Toleration);
      const admitted = admitPodSpec(spec(clean), ADMISSION);
      assert.deepEqual(admitted.tolerations, want);
      assert.equal(admitted.restartPolicy, 'Always');
      assert.equal(admitted.terminationGracePeriodSeconds, 30);
    });
  }

  it('is idempotent: admitting an admitted spec adds nothing', () => {
    const once = admitPodSpec(spec(), ADMISSION);
    assert.deepEqual(admitPodSpec(once, ADMISSION), once);
  });
});

describe('pod spec updates: only new tolerations', () => {
  const stored = admitPodSpec({ ...spec(), nodeName: 'n1' }, ADMISSION);
  const extra: Toleration = { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' };
  const cases: Array<[string, PodSpec, string[]]> = [
    ['the same spec', stored, []],
    ['nodeName left out (kept)', { ...stored, nodeName: undefined } as never, []],
    ['a toleration added', { ...stored, tolerations: [extra, ...(stored.tolerations ?? [])] }, []],
    ['a toleration removed', { ...stored, tolerations: stored.tolerations?.slice(1) }, ['spec.tolerations']],
    [
      'a toleration changed',
      { ...stored, tolerations: [{ ...NOT_READY, tolerationSeconds: 10 }, UNREACHABLE] },
      ['spec.tolerations'],
    ],
    ['nodeName changed', { ...stored, nodeName: 'n2' }, ['spec.nodeName']],
    ['a container changed', { ...stored, containers: [{ name: 'c', image: 'other' }] }, ['spec']],
    ['restartPolicy changed', { ...stored, restartPolicy: 'Never' }, ['spec']],
  ];
  for (const [name, next, fields] of cases) {
    it(name, () => {
      const clean = JSON.parse(JSON.stringify(next)) as PodSpec;
      assert.deepEqual(
        podSpecUpdateProblems(stored, clean).map((c) => c.field),
        fields,
      );
    });
  }

  it('a finished pod keeps its phase; others may move', () => {
    assert.deepEqual(podStatusUpdateProblems({ phase: 'Pending' }, { phase: 'Running' }), []);
    assert.deepEqual(podStatusUpdateProblems({ phase: 'Failed' }, { phase: 'Failed', message: 'x' }), []);
    assert.deepEqual(
      podStatusUpdateProblems({ phase: 'Succeeded' }, { phase: 'Running' }).map((c) => c.field),
      ['status.phase'],
    );
  });
});

describe('binding', () => {
  it('sets nodeName and PodScheduled True, replacing an earlier PodScheduled', () => {
    const p: Pod = {
      ...pod('p'),
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
    };
    const bound = bindPod(p, 'n1', NOW);
    assert.equal(bound.spec.nodeName, 'n1');
    assert.deepEqual(bound.status.conditions, [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-11-29T12:00:00.000Z' },
    ]);
  });

  it('refuses a pod already bound, or being deleted, with Conflict', () => {
    assert.throws(
      () => bindPod(pod('p', 'default', 'n1'), 'n2', NOW),
      (err) => {
        assert.ok(err instanceof ConflictError);
        assert.match(err.message, /already bound to node "n1"/);
        return true;
      },
    );
    const terminating = pod('p');
    terminating.metadata.deletionTimestamp = '2026-11-29T12:00:30.000Z';
    assert.throws(() => bindPod(terminating, 'n2', NOW), ConflictError);
  });
});

describe('graceful deletion plans', () => {
  const live = node('n1');
  const outOfService: Node = {
    ...live,
    spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] },
  };
  const bound = pod('p', 'default', 'n1');
  const marked = (grace: number, at = NOW): Pod => ({
    ...bound,
    metadata: {
      ...bound.metadata,
      deletionTimestamp: new Date(at + grace * 1000).toISOString(),
      deletionGracePeriodSeconds: grace,
    },
  });
  const cases: Array<[string, Pod, Node | undefined, number | undefined, string]> = [
    ['unbound: removed', pod('p'), undefined, undefined, 'remove'],
    ['bound to a node that does not exist: removed', bound, undefined, undefined, 'remove'],
    ['bound to an out-of-service node: removed', bound, outOfService, undefined, 'remove'],
    ['Succeeded: removed', { ...bound, status: { phase: 'Succeeded' } }, live, undefined, 'remove'],
    ['grace 0: removed', bound, live, 0, 'remove'],
    ['terminating, then grace 0: removed', marked(30), live, 0, 'remove'],
    ['bound, default grace: marked at now + 30 s', bound, live, undefined, 'mark 30 2026-11-29T12:00:30.000Z'],
    ['bound, grace 5: marked at now + 5 s', bound, live, 5, 'mark 5 2026-11-29T12:00:05.000Z'],
    ['terminating with 30, asked 60: unchanged', marked(30), live, 60, 'unchanged'],
    ['terminating with 30, asked again with the default: unchanged', marked(30), live, undefined, 'unchanged'],
    // Deletion began 10 s before NOW with 30 s: shortened to 5 s, the deadline is that start + 5 s.
    ['terminating with 30, asked 5: shortened', marked(30, NOW - 10_000), live, 5, 'mark 5 2026-11-29T11:59:55.000Z'],
  ];
  for (const [name, p, n, grace, want] of cases) {
    it(name, () => {
      const plan = planPodDeletion(p, n, grace, NOW);
      const got =
        plan.kind === 'mark'
          ? `mark ${plan.pod.metadata.deletionGracePeriodSeconds} ${plan.pod.metadata.deletionTimestamp}`
          : plan.kind;
      assert.equal(got, want);
    });
  }

  it("uses the pod's terminationGracePeriodSeconds when the request names none", () => {
    const p = { ...bound, spec: { ...bound.spec, terminationGracePeriodSeconds: 7 } };
    const plan = planPodDeletion(p, live, undefined, NOW);
    assert.equal(plan.kind === 'mark' && plan.pod.metadata.deletionGracePeriodSeconds, 7);
  });
});

describe('deployment defaults and generation', () => {
  it('defaults replicas, RollingUpdate 25%/25% and the template pod defaults; Recreate gets no rollingUpdate', () => {
    const d = withDeploymentDefaults({ ...deployment('web').spec, replicas: undefined } as never);
    assert.equal(d.replicas, 1);
    assert.deepEqual(d.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(d.template.spec.restartPolicy, 'Always');
    const r = withDeploymentDefaults({ ...deployment('web').spec, strategy: { type: 'Recreate' } });
    assert.deepEqual(r.strategy, { type: 'Recreate' });
  });

  it('generation is 1 on create and grows only when the spec changes', () => {
    const d = { ...deployment('web'), spec: withDeploymentDefaults(deployment('web').spec) };
    assert.equal(nextGeneration(undefined, d.spec), 1);
    assert.equal(nextGeneration(d, JSON.parse(JSON.stringify(d.spec))), 1);
    assert.equal(nextGeneration(d, { ...d.spec, replicas: 5 }), 2);
  });
});
