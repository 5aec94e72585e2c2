import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Agent, validateAgentConfig, type AgentConfig } from '../../src/agent/agent.js';
import { nodeResources } from '../../src/agent/node-resources.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Node } from '../../src/core/node.js';
import type { Pod } from '../../src/core/pod.js';
import { agentConfig, FakeHost, fakes, fixedRandom } from './agent-fixtures.js';
import { FakeLauncher } from './pods/fake-launcher.js';
import { podBody, processContainer } from './pods/pod-fixtures.js';

const pods: AgentConfig['pods'] = {
  allowProcessPods: true,
  podLogDir: '/tmp/unused',
  crashLoopBackoff: { initialMs: 10_000, maxMs: 300_000 },
};

function setup(config: Partial<AgentConfig>) {
  const { clock, client } = fakes();
  const launcher = new FakeLauncher();
  const host = new FakeHost();
  const agent = new Agent({
    client,
    clock,
    random: fixedRandom(0),
    log: silentLogger,
    config: agentConfig(config),
    host,
    processLauncher: launcher,
  });
  const ac = new AbortController();
  const running = agent.run(ac.signal);
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  return { clock, client, launcher, agent, stop, node: () => client.data.nodes.get('node-1') as unknown as Node };
}

describe('Agent with pods', () => {
  it('runs the pods bound to its node and reports capacity, allocatable and podCount in its status', async () => {
    const t = setup({ pods, maxPods: 50 });
    await t.clock.advance(1_000);
    await t.client.pods('default').create(podBody('web'));
    await t.client.pods('default').create(podBody('job', { containers: [processContainer()] }));
    await t.clock.advance(10_000);
    const web = t.client.data.pods.get('default/web') as unknown as Pod;
    assert.equal(web.status.phase, 'Running');
    assert.equal(web.status.hostIP, '10.0.0.1');
    assert.equal(t.launcher.running('main').length, 1);
    const expected = { cpu: '4', memory: `${Math.floor(16e9 / 2 ** 20)}Mi`, pods: '50' };
    assert.deepEqual(t.node().status.capacity, expected);
    assert.deepEqual(t.node().status.allocatable, expected);
    assert.equal(t.node().status.podCount, 2);
    await t.client.pods('default').delete('job');
    await t.clock.advance(10_000);
    assert.equal(t.node().status.podCount, 1, 'the status follows the pods at the next update');
    const posts = t.agent.stats().statusPosts;
    await t.clock.advance(60_000);
    assert.equal(t.agent.stats().statusPosts, posts, 'no post while nothing changes');
    await t.stop();
    assert.deepEqual(t.launcher.started[0]?.signals, ['SIGTERM']);
  });

  it('without a pods configuration opens no pod watch and reports no podCount', async () => {
    const t = setup({});
    await t.clock.advance(10_000);
    assert.equal(t.client.callsOf('pods').length, 0);
    assert.equal(t.node().status.podCount, undefined);
    assert.deepEqual(t.node().status.capacity, nodeResources(4, 16e9, 110));
    await t.stop();
  });

  it('refuses process pods without a log directory, and bad capacities', () => {
    const base = agentConfig();
    assert.throws(
      () => validateAgentConfig({ ...base, pods: { ...pods, podLogDir: '' } }),
      /--allow-process-pods needs a --pod-log-dir/,
    );
    assert.throws(() => validateAgentConfig({ ...base, maxPods: -1 }), /--max-pods/);
    assert.throws(() => validateAgentConfig({ ...base, cpuCapacity: 0 }), /--cpu-capacity/);
  });
});

describe('nodeResources', () => {
  it('writes Kubernetes quantities: whole CPUs or millicores, memory in whole MiB, pods', () => {
    assert.deepEqual(nodeResources(2, 24 * 2 ** 30 + 5, 110), { cpu: '2', memory: '24576Mi', pods: '110' });
    assert.equal(nodeResources(1.5, 0, 0).cpu, '1500m');
  });
});
