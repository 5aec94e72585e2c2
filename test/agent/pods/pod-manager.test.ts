import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROCESS_PODS_DISABLED } from '../../../src/agent/pods/pod-manager.js';
import { formatTime } from '../../../src/core/clock.js';
import { flush } from '../../support/fake-clock.js';
import { unreachable } from '../agent-fixtures.js';
import { harness, HOST_IP, NODE, processContainer } from './pod-fixtures.js';

const condition = (pod: { status: { conditions?: { type: string; status: string }[] } } | undefined, type: string) =>
  pod?.status.conditions?.find((c) => c.type === type)?.status;

describe('PodManager: acknowledging pods', () => {
  it('watches only its node, and reports a placeholder pod Running and Ready with startTime and hostIP', async () => {
    const h = await harness();
    const created = formatTime(h.clock.now());
    await h.create('web-1');
    await h.create('elsewhere', { node: 'node-2' });
    const pod = h.pod('web-1');
    assert.equal(pod?.status.phase, 'Running');
    assert.equal(condition(pod, 'Ready'), 'True');
    assert.equal(condition(pod, 'PodScheduled'), 'True');
    assert.equal(pod?.status.startTime, created);
    assert.equal(pod?.status.hostIP, HOST_IP);
    assert.deepEqual(pod?.status.containerStatuses, [
      { name: 'main', ready: true, restartCount: 0, state: { running: { startedAt: created } } },
    ]);
    assert.equal(h.pod('elsewhere')?.status.phase, 'Pending', "another node's pod is not touched");
    const watches = h.client.callsOf('pods', 'watch');
    assert.equal(watches.length, 1, 'one watch');
    assert.equal(watches[0]?.fieldSelector, `spec.nodeName=${NODE}`);
    assert.equal(h.client.callsOf('pods', 'list')[0]?.fieldSelector, `spec.nodeName=${NODE}`);
    assert.equal(h.manager.podCount(), 1);
    await h.stop();
  });

  it('writes a status once per change: not again as time passes, nor after its own write echoes back', async () => {
    const h = await harness();
    await h.create('web-1');
    assert.equal(h.statusWrites('web-1'), 1);
    await h.clock.advance(30 * 60_000);
    assert.equal(h.statusWrites('web-1'), 1);
    await h.stop();
  });

  it('a restarted agent finds its placeholder pods acknowledged and writes nothing', async () => {
    const h = await harness();
    await h.create('web-1');
    await h.clock.advance(60_000);
    await h.restart();
    await h.clock.advance(60_000);
    assert.equal(h.statusWrites(), 1);
    assert.equal(h.manager.podCount(), 1);
    await h.stop();
  });

  it('on a 409 re-reads the pod and writes again, keeping what another writer set', async () => {
    const h = await harness();
    h.client.beforeCall = (call) => {
      if (call.op !== 'updateStatus') return;
      h.client.beforeCall = undefined;
      // Another writer's status change lands first: our write carries a stale resourceVersion.
      const stored = structuredClone(h.pod('web-1'));
      if (stored === undefined) return;
      const foreign = { type: 'example.com/Checked', status: 'True' as const };
      h.client.put('pods', { ...stored, status: { ...stored.status, conditions: [foreign] } });
    };
    await h.create('web-1');
    const pod = h.pod('web-1');
    assert.equal(pod?.status.phase, 'Running');
    assert.equal(condition(pod, 'example.com/Checked'), 'True');
    assert.equal(h.statusWrites('web-1'), 2);
    assert.equal(h.client.callsOf('pods', 'get').length, 1);
    await h.stop();
  });

  it('retries a status write that failed on an unreachable API after a backoff', async () => {
    const h = await harness();
    h.client.failNext('pods', 'updateStatus', unreachable(), 2);
    await h.create('web-1');
    assert.equal(h.pod('web-1')?.status.phase, 'Pending');
    await h.clock.advance(200);
    assert.equal(h.pod('web-1')?.status.phase, 'Pending', 'second attempt failed too');
    await h.clock.advance(400);
    assert.equal(h.pod('web-1')?.status.phase, 'Running');
    assert.equal(h.statusWrites('web-1'), 3);
    await h.clock.advance(60_000);
    assert.equal(h.statusWrites('web-1'), 3);
    await h.stop();
  });

  it('without --allow-process-pods, a pod with a command is Failed with reason ProcessPodsDisabled and runs nothing', async () => {
    const h = await harness({ allowProcessPods: false });
    await h.create('job', { containers: [processContainer()] });
    const pod = h.pod('job');
    assert.equal(pod?.status.phase, 'Failed');
    assert.equal(pod?.status.reason, PROCESS_PODS_DISABLED);
    assert.match(pod?.status.message ?? '', /--allow-process-pods/);
    assert.equal(condition(pod, 'Ready'), 'False');
    assert.equal(h.launcher.started.length, 0);
    assert.equal(h.manager.podCount(), 0, 'a Failed pod holds no room');
    await h.clock.advance(60_000);
    assert.equal(h.statusWrites('job'), 1);
    await h.stop();
  });
});

describe('PodManager: deletion', () => {
  it('a placeholder pod is removed with grace 0 as soon as it is marked for deletion', async () => {
    const h = await harness();
    await h.create('web-1');
    await h.client.pods('default').delete('web-1');
    await flush();
    assert.equal(h.pod('web-1'), undefined);
    const deletes = h.client.callsOf('pods', 'delete');
    assert.equal(deletes.length, 2, "the user's graceful DELETE, then the agent's");
    assert.equal(h.manager.podCount(), 0);
    await h.stop();
  });

  it('a process pod gets SIGTERM, SIGKILL after its grace period, and only then is removed', async () => {
    const h = await harness();
    h.launcher.onTerm = 'ignore';
    await h.create('job', { containers: [processContainer()], grace: 5 });
    const proc = h.launcher.last('main');
    const writes = h.statusWrites('job');
    await h.client.pods('default').delete('job');
    await flush();
    assert.deepEqual(proc.signals, ['SIGTERM']);
    await h.clock.advance(4_999);
    assert.deepEqual(proc.signals, ['SIGTERM'], 'no SIGKILL within the grace period');
    assert.ok(h.pod('job')?.metadata.deletionTimestamp, 'still there while it runs');
    await h.clock.advance(1);
    assert.deepEqual(proc.signals, ['SIGTERM', 'SIGKILL']);
    await flush();
    assert.equal(h.pod('job'), undefined, 'removed once stopped');
    assert.equal(h.statusWrites('job'), writes, 'no status write while terminating');
    assert.deepEqual(h.launcher.removedLogs, [`/logs/default_job_${proc.spec.env.POD_UID}.log`]);
    await h.stop();
  });

  it('a process that exits on SIGTERM is removed at once; a second DELETE with a shorter grace brings SIGKILL forward', async () => {
    const h = await harness();
    await h.create('quick', { containers: [processContainer()], grace: 30 });
    await h.client.pods('default').delete('quick');
    await flush();
    assert.equal(h.pod('quick'), undefined);
    h.launcher.onTerm = 'ignore';
    await h.create('slow', { containers: [processContainer('slow')], grace: 30 });
    await h.client.pods('default').delete('slow');
    await h.clock.advance(2_000);
    await h.client.pods('default').delete('slow', { gracePeriodSeconds: 3 });
    await flush();
    await h.clock.advance(999);
    assert.deepEqual(h.launcher.last('slow').signals, ['SIGTERM']);
    await h.clock.advance(1);
    assert.deepEqual(h.launcher.last('slow').signals, ['SIGTERM', 'SIGKILL'], 'killed 3 s after the first SIGTERM');
    await flush();
    assert.equal(h.pod('slow'), undefined);
    await h.stop();
  });

  it('a pod removed from the API by someone else (grace 0) is stopped, with its grace period', async () => {
    const h = await harness();
    h.launcher.onTerm = 'ignore';
    await h.create('job', { containers: [processContainer()], grace: 2 });
    await h.client.pods('default').delete('job', { gracePeriodSeconds: 0 });
    await flush();
    assert.deepEqual(h.launcher.last('main').signals, ['SIGTERM']);
    await h.clock.advance(2_000);
    assert.deepEqual(h.launcher.last('main').signals, ['SIGTERM', 'SIGKILL']);
    assert.equal(h.client.callsOf('pods', 'delete').length, 1, 'the agent deletes nothing more');
    await h.stop();
  });

  it('a pod deleted and created again under the same name is a new pod: the old one stops, the new one starts', async () => {
    const h = await harness();
    const first = await h.create('job', { containers: [processContainer()] });
    h.client.remove('pods', 'job', 'default');
    const second = await h.create('job', { containers: [processContainer()] });
    assert.notEqual(first.metadata.uid, second.metadata.uid);
    assert.equal(h.launcher.started.length, 2);
    assert.equal(h.launcher.started[0]?.running, false);
    assert.equal(h.launcher.started[1]?.running, true);
    assert.equal(h.launcher.started[1]?.spec.env.POD_UID, second.metadata.uid);
    assert.equal(h.pod('job')?.status.phase, 'Running');
    await h.stop();
  });
});

describe('PodManager: partitions and shutdown', () => {
  it('keeps its pods running while the API is unreachable; on reconnect stops the deleted ones and starts the new', async () => {
    const h = await harness();
    await h.create('stays', { containers: [processContainer('stays')] });
    await h.create('goes', { containers: [processContainer('goes')] });
    let partitioned = true;
    h.client.beforeCall = () => {
      if (partitioned) throw unreachable();
    };
    h.client.watches('pods').at(-1)?.fail(unreachable());
    // Meanwhile, on the server: one pod is removed, another is bound here, and the history is compacted.
    h.client.remove('pods', 'goes', 'default');
    h.client.beforeCall = undefined;
    await h.client.pods('default').create({
      metadata: { name: 'arrives', namespace: 'default' },
      spec: { nodeName: NODE, containers: [processContainer('arrives')] },
      status: { phase: 'Pending' },
    });
    h.client.compact();
    h.client.beforeCall = () => {
      if (partitioned) throw unreachable();
    };
    await h.clock.advance(2 * 60_000);
    assert.equal(h.launcher.running('goes').length, 1, 'a partitioned agent keeps every pod running');
    const warnings = h.log.lines.filter((l) => l.level === 'warn' && l.msg.startsWith('watching the pods'));
    assert.equal(warnings.length, 1, 'the outage is logged once, not at every retry');
    assert.equal(h.launcher.running('arrives').length, 0);
    partitioned = false;
    await h.clock.advance(60_000);
    assert.equal(h.launcher.running('goes').length, 0, 'stopped after the relist showed it gone');
    assert.deepEqual(h.launcher.last('goes').signals, ['SIGTERM']);
    assert.equal(h.launcher.running('arrives').length, 1);
    assert.equal(h.launcher.running('stays').length, 1);
    assert.equal(h.launcher.started.filter((p) => p.spec.container === 'stays').length, 1, 'never restarted');
    assert.equal(h.pod('arrives')?.status.phase, 'Running');
    assert.equal(h.manager.podCount(), 2);
    assert.ok(h.log.lines.some((l) => /watching the pods of node node-1 recovered/.test(l.msg)));
    await h.stop();
  });

  it('resumes its watch from the last resourceVersion after a short outage, missing nothing', async () => {
    const h = await harness();
    await h.create('a');
    h.client.watches('pods').at(-1)?.fail(unreachable());
    await h.create('b');
    await h.clock.advance(1_000);
    const watches = h.client.callsOf('pods', 'watch');
    assert.equal(watches.length, 2);
    assert.notEqual(watches[1]?.resourceVersion, watches[0]?.resourceVersion);
    assert.equal(h.client.callsOf('pods', 'list').length, 1, 'no relist');
    assert.equal(h.pod('b')?.status.phase, 'Running');
    await h.stop();
  });

  it('on shutdown stops its process pods (SIGTERM) and tells the API nothing', async () => {
    const h = await harness();
    await h.create('job', { containers: [processContainer()] });
    await h.create('web');
    const calls = h.client.calls.length;
    await h.stop();
    assert.deepEqual(h.launcher.last('main').signals, ['SIGTERM']);
    assert.equal(h.client.calls.length, calls);
    assert.ok(h.pod('job') && h.pod('web'), 'the pods stay in the API');
  });
});
