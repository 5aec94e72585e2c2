import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { placeholderView } from '../../../src/agent/pods/placeholder-pod.js';
import { podPhase, podStatusEqual, refusedPodStatus, runningPodStatus } from '../../../src/agent/pods/pod-status.js';
import type { ContainerView } from '../../../src/agent/pods/pod-runtime.js';
import type { ContainerState } from '../../../src/core/pod.js';

const T0 = '2026-11-29T12:00:00.000Z';
const T1 = '2026-11-29T12:05:00.000Z';

function view(state: ContainerState, done = false, restartCount = 0, lastState?: ContainerState): ContainerView {
  const status = { name: 'c', ready: state.running !== undefined, restartCount, state };
  return { status: lastState === undefined ? status : { ...status, lastState }, done };
}
const running = view({ running: { startedAt: T0 } });
const creating = view({ waiting: { reason: 'ContainerCreating' } });
const ok = view({ terminated: { exitCode: 0 } }, true);
const failed = view({ terminated: { exitCode: 1 } }, true);
const backoff = view({ waiting: { reason: 'CrashLoopBackOff' } }, false, 0, { terminated: { exitCode: 1 } });

describe('podPhase (the kubelet getPhase)', () => {
  const table: Array<[string, ContainerView[], string]> = [
    ['a container not started yet', [running, creating], 'Pending'],
    ['one running', [running, ok], 'Running'],
    ['one waiting to restart', [backoff, ok], 'Running'],
    ['all finished, all zero', [ok, ok], 'Succeeded'],
    ['all finished, one non-zero', [ok, failed], 'Failed'],
    ['placeholders', [placeholderView('a', T0)], 'Running'],
  ];
  for (const [what, containers, phase] of table) {
    it(`${what}: ${phase}`, () => assert.equal(podPhase(containers), phase));
  }
});

describe('runningPodStatus', () => {
  const inputs = { containers: [running], hostIP: '10.0.0.1', startTime: T0, now: T0 };

  it('sets PodScheduled and Ready True, startTime, hostIP and the containers; keeps other conditions', () => {
    const previous = {
      phase: 'Pending' as const,
      conditions: [{ type: 'example.com/Gate', status: 'True' as const, lastTransitionTime: T0 }],
    };
    const s = runningPodStatus({ ...inputs, previous });
    assert.deepEqual(s, {
      phase: 'Running',
      hostIP: '10.0.0.1',
      startTime: T0,
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: T0 },
        { type: 'Ready', status: 'True', lastTransitionTime: T0 },
        { type: 'example.com/Gate', status: 'True', lastTransitionTime: T0 },
      ],
      containerStatuses: [running.status],
    });
  });

  it('recomputed later with nothing changed is equal (no write); a change moves only what changed', () => {
    const first = runningPodStatus({ ...inputs, previous: { phase: 'Pending' } });
    const again = runningPodStatus({ ...inputs, previous: JSON.parse(JSON.stringify(first)), now: T1 });
    assert.ok(podStatusEqual(first, again));
    const crashed = runningPodStatus({ ...inputs, containers: [backoff], previous: first, now: T1 });
    assert.ok(!podStatusEqual(first, crashed));
    const ready = crashed.conditions?.find((c) => c.type === 'Ready');
    assert.deepEqual(ready, {
      type: 'Ready',
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [c]',
      lastTransitionTime: T1,
    });
    assert.equal(crashed.conditions?.find((c) => c.type === 'PodScheduled')?.lastTransitionTime, T0);
    assert.equal(crashed.startTime, T0, 'startTime is kept');
  });
});

describe('refusedPodStatus', () => {
  it('is Failed with the reason and message, Ready False, each container waiting with the reason', () => {
    const s = refusedPodStatus({ phase: 'Pending' }, ['a'], '10.0.0.1', T0, 'ProcessPodsDisabled', 'enable it');
    assert.equal(s.phase, 'Failed');
    assert.equal(s.reason, 'ProcessPodsDisabled');
    assert.equal(s.message, 'enable it');
    assert.equal(s.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
    assert.deepEqual(s.containerStatuses, [
      { name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ProcessPodsDisabled' } } },
    ]);
  });
});
