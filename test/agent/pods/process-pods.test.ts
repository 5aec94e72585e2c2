import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOST_EXIT_CODE } from '../../../src/agent/pods/process-container.js';
import type { ContainerStatus } from '../../../src/core/pod.js';
import { flush } from '../../support/fake-clock.js';
import { harness, NODE, processContainer } from './pod-fixtures.js';

const status = (h: Awaited<ReturnType<typeof harness>>, pod: string, container = 'main'): ContainerStatus | undefined =>
  h.pod(pod)?.status.containerStatuses?.find((c) => c.name === container);

describe('process pods', () => {
  it('run each container with command + args and a small environment, and report it running', async () => {
    const h = await harness();
    const pod = await h.create('job', { containers: [processContainer('main', ['node', '-e'], ['work()'])] });
    const proc = h.launcher.last('main');
    assert.deepEqual(proc.spec.argv, ['node', '-e', 'work()']);
    assert.deepEqual(proc.spec.env, {
      HOSTNAME: 'job',
      POD_NAME: 'job',
      POD_NAMESPACE: 'default',
      POD_UID: pod.metadata.uid,
      NODE_NAME: NODE,
      CONTAINER_NAME: 'main',
      GREETING: 'hi',
    });
    assert.equal(proc.spec.logPath, `/logs/default_job_${pod.metadata.uid}.log`);
    assert.match(proc.spec.header, /container main of pod default\/job starting: \["node","-e","work\(\)"\]/);
    assert.equal(h.pod('job')?.status.phase, 'Running');
    assert.deepEqual(status(h, 'job')?.state.running !== undefined, true);
    assert.equal(status(h, 'job')?.ready, true);
    await h.stop();
  });

  it('restartPolicy Never: an exit ends the pod, Succeeded on 0 and Failed otherwise; it then holds no room', async () => {
    const h = await harness();
    await h.create('ok', { containers: [processContainer('a')], restartPolicy: 'Never' });
    await h.create('bad', { containers: [processContainer('b')], restartPolicy: 'Never' });
    assert.equal(h.manager.podCount(), 2);
    h.launcher.last('a').exit({ exitCode: 0 });
    h.launcher.last('b').exit({ exitCode: 3 });
    await flush();
    assert.equal(h.pod('ok')?.status.phase, 'Succeeded');
    assert.equal(h.pod('bad')?.status.phase, 'Failed');
    assert.deepEqual(
      { ...status(h, 'bad', 'b')?.state.terminated, startedAt: undefined, finishedAt: undefined },
      { exitCode: 3, reason: 'Error', startedAt: undefined, finishedAt: undefined },
    );
    assert.equal(status(h, 'ok', 'a')?.state.terminated?.reason, 'Completed');
    assert.equal(h.pod('bad')?.status.conditions?.find((c) => c.type === 'Ready')?.reason, 'PodCompleted');
    assert.equal(h.manager.podCount(), 0);
    await h.clock.advance(60 * 60_000);
    assert.equal(h.launcher.started.length, 2, 'never restarted');
    await h.stop();
  });

  it('restartPolicy OnFailure restarts a failed container but not a successful one', async () => {
    const h = await harness();
    await h.create('job', { containers: [processContainer()], restartPolicy: 'OnFailure' });
    h.launcher.last('main').exit({ exitCode: 1 });
    await h.clock.advance(10_000);
    assert.equal(h.launcher.started.length, 2);
    h.launcher.last('main').exit({ exitCode: 0 });
    await h.clock.advance(60 * 60_000);
    assert.equal(h.launcher.started.length, 2);
    assert.equal(h.pod('job')?.status.phase, 'Succeeded');
    assert.equal(status(h, 'job')?.restartCount, 1);
    await h.stop();
  });

  it('restartPolicy Always: CrashLoopBackOff 10 s, 20 s, 40 s … up to 5 min, with restart counts and last states', async () => {
    const h = await harness();
    await h.create('svc', { containers: [processContainer()] });
    h.launcher.last('main').exit({ exitCode: 2 });
    await flush();
    const waiting = status(h, 'svc');
    assert.equal(waiting?.state.waiting?.reason, 'CrashLoopBackOff');
    assert.match(
      waiting?.state.waiting?.message ?? '',
      /back-off 10s restarting failed container=main pod=default\/svc/,
    );
    assert.equal(waiting?.lastState?.terminated?.exitCode, 2);
    assert.equal(waiting?.restartCount, 0);
    assert.equal(waiting?.ready, false);
    assert.equal(h.pod('svc')?.status.phase, 'Running', 'a crash-looping pod is still Running');
    assert.equal(h.pod('svc')?.status.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      const before = h.launcher.started.length;
      let waited = 0;
      while (h.launcher.started.length === before) {
        await h.clock.advance(1_000);
        waited += 1_000;
      }
      delays.push(waited);
      h.launcher.last('main').exit({ exitCode: 2 });
      await flush();
    }
    assert.deepEqual(delays, [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    assert.equal(status(h, 'svc')?.restartCount, 7);
    await h.stop();
  });

  it('the backoff starts over once a container has run for twice the cap', async () => {
    const h = await harness();
    await h.create('svc', { containers: [processContainer()] });
    for (const ranFor of [0, 0, 0]) {
      await h.clock.advance(ranFor);
      h.launcher.last('main').exit({ exitCode: 1 });
      await h.clock.advance(300_000);
    }
    assert.equal(h.launcher.started.length, 4);
    await h.clock.advance(10 * 60_000);
    h.launcher.last('main').exit({ exitCode: 1 });
    await h.clock.advance(10_000);
    assert.equal(h.launcher.started.length, 5, 'restarted after the first delay again');
    await h.stop();
  });

  it('a command that cannot start is a StartError exit (128) and follows the restart policy', async () => {
    const h = await harness();
    h.launcher.failNextStart = 'cannot start "nope": spawn nope ENOENT';
    await h.create('typo', { containers: [processContainer('main', ['nope'])], restartPolicy: 'Never' });
    await flush();
    const terminated = status(h, 'typo')?.state.terminated;
    assert.equal(terminated?.exitCode, 128);
    assert.equal(terminated?.reason, 'StartError');
    assert.match(terminated?.message ?? '', /ENOENT/);
    assert.equal(h.pod('typo')?.status.phase, 'Failed');
    await h.stop();
  });

  it('a container without a command in a process pod is a placeholder beside the processes', async () => {
    const h = await harness();
    await h.create('mixed', { containers: [processContainer('worker'), { name: 'sidecar' }], restartPolicy: 'Never' });
    assert.equal(h.launcher.started.length, 1);
    assert.equal(h.pod('mixed')?.status.containerStatuses?.length, 2);
    assert.equal(h.pod('mixed')?.status.phase, 'Running');
    await h.stop();
  });

  it('status writes follow the changes: one for the start, one per exit, one per restart', async () => {
    const h = await harness();
    await h.create('svc', { containers: [processContainer()] });
    assert.equal(h.statusWrites('svc'), 1);
    h.launcher.last('main').exit({ exitCode: 1 });
    await flush();
    assert.equal(h.statusWrites('svc'), 2);
    await h.clock.advance(10_000);
    assert.equal(h.statusWrites('svc'), 3);
    await h.clock.advance(60 * 60_000);
    assert.equal(h.statusWrites('svc'), 3);
    await h.stop();
  });
});

describe('process pods across an agent restart', () => {
  it('start again as a restart (exit 137, ContainerStatusUnknown), or end Failed under restartPolicy Never', async () => {
    const h = await harness();
    await h.create('svc', { containers: [processContainer('svc')] });
    await h.create('once', { containers: [processContainer('once')], restartPolicy: 'Never' });
    await h.create('done', { containers: [processContainer('done')], restartPolicy: 'Never' });
    h.launcher.last('done').exit({ exitCode: 0 });
    await flush();
    await h.restart();
    assert.equal(h.launcher.started.filter((p) => p.spec.container === 'svc').length, 2);
    const svc = status(h, 'svc', 'svc');
    assert.equal(svc?.restartCount, 1);
    assert.equal(svc?.lastState?.terminated?.exitCode, LOST_EXIT_CODE);
    assert.equal(svc?.lastState?.terminated?.reason, 'ContainerStatusUnknown');
    assert.ok(svc?.state.running);
    assert.equal(h.launcher.started.filter((p) => p.spec.container === 'once').length, 1);
    assert.equal(h.pod('once')?.status.phase, 'Failed');
    assert.equal(status(h, 'once', 'once')?.state.terminated?.exitCode, LOST_EXIT_CODE);
    assert.equal(h.launcher.started.filter((p) => p.spec.container === 'done').length, 1, 'a finished pod stays so');
    assert.equal(h.pod('done')?.status.phase, 'Succeeded');
    await h.stop();
  });
});
