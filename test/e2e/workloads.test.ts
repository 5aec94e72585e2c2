import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Writable } from '../../src/client/api-client.js';
import { HttpApiClient } from '../../src/client/http-client.js';
import type { Deployment } from '../../src/core/deployment.js';
import type { Pod } from '../../src/core/pod.js';
import { eventually } from '../support/eventually.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// End to end with real processes: a Deployment of 4 pods created through the API gets its pods from the
// deployment controller, the scheduler binds them two to a node across the two agents' zones, and the status
// counts what can be seen without agents that run pods; scaling down deletes pods gracefully. Run with the
// controllers inside the server and as their own process.
const FLAGS = ['--node-monitor-period', '200ms', '--node-monitor-grace-period', '2s', '--log-level', 'warn'];

function agent(server: ServerProc, name: string, zone: string): Proc {
  return startProcess(
    SHEPHERD_BIN,
    ['--mode', 'agent', '--node-name', name, '--zone', zone, '--api-addr', server.addr, '--lease-duration', '2s'],
    { name },
  );
}

const web = (replicas: number): Writable<Deployment> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
  },
  status: {},
});

for (const layout of ['in-process controllers', 'controllers as their own process'] as const) {
  describe(`workloads end to end (${layout})`, { timeout: 90_000 }, () => {
    const dir = tempDir();
    let server: ServerProc;
    let controllers: Proc | undefined;
    let client: HttpApiClient;
    const agents: Proc[] = [];

    const pods = async (): Promise<Pod[]> => (await client.pods('default').list()).items;
    const live = async (): Promise<Pod[]> => (await pods()).filter((p) => p.metadata.deletionTimestamp === undefined);

    before(async () => {
      const separate = layout === 'controllers as their own process';
      server = await startServer(['--db', `${dir.path}/db.sqlite`, ...(separate ? ['--no-controller'] : []), ...FLAGS]);
      if (separate) {
        controllers = startProcess(SHEPHERD_BIN, ['--mode', 'controller', '--api-addr', server.addr, ...FLAGS], {
          name: 'controllers',
        });
      }
      client = new HttpApiClient({ addresses: [server.addr] });
      agents.push(agent(server, 'node-a', 'zone-a'), agent(server, 'node-b', 'zone-b'));
      await eventually(
        async () =>
          (await client.nodes.list()).items.filter((n) =>
            n.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
          ).length === 2,
        { what: 'two Ready nodes', timeoutMs: 20_000 },
      );
    });

    after(async () => {
      await client?.close();
      await Promise.all([...agents, ...(controllers ? [controllers] : [])].map((p) => p.stop()));
      await server?.stop();
      dir.cleanup();
    });

    test('a Deployment of 4 gets 4 pods, bound two to a node across both zones, and its status', async () => {
      await client.deployments('default').create(web(4));
      await eventually(async () => (await pods()).filter((p) => p.spec.nodeName !== undefined).length === 4, {
        what: '4 pods bound',
        timeoutMs: 20_000,
      });
      const all = await pods();
      assert.equal(all.length, 4);
      const perNode = new Map<string, number>();
      for (const p of all) perNode.set(p.spec.nodeName as string, (perNode.get(p.spec.nodeName as string) ?? 0) + 1);
      assert.deepEqual(Object.fromEntries(perNode), { 'node-a': 2, 'node-b': 2 });
      for (const p of all) {
        assert.match(p.metadata.name, /^web-[a-z0-9]+-[a-z0-9]{5}$/);
        assert.equal(p.metadata.ownerReferences?.[0]?.kind, 'Deployment');
        assert.equal(p.status.conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
      }
      await eventually(
        async () => {
          const d: Deployment = await client.deployments('default').get('web');
          return d.status.replicas === 4 && d.status.updatedReplicas === 4 && d.status.observedGeneration === 1;
        },
        { what: 'status: 4 replicas, 4 updated, generation 1 observed', timeoutMs: 10_000 },
      );
      // The agents run the pods (placeholders: no command), so all four become ready and available.
      await eventually(
        async () => {
          const d: Deployment = await client.deployments('default').get('web');
          return d.status.readyReplicas === 4 && d.status.availableReplicas === 4 && d.status.unavailableReplicas === 0;
        },
        { what: 'status: 4 ready, 4 available, 0 unavailable', timeoutMs: 10_000 },
      );
      assert.ok((await pods()).every((p) => p.status.phase === 'Running'));
      const events = (await client.events.list()).items;
      assert.equal(events.filter((e) => e.reason === 'Scheduled' && e.source.component === 'scheduler').length, 4);
      assert.ok(
        events.some((e) => e.reason === 'ScalingReplicaSet' && /^Scaled up replica set web-\S+ to 4$/.test(e.message)),
      );
    });

    test('scaling down to 1 deletes 3 pods gracefully and the status follows', async () => {
      const d: Deployment = await client.deployments('default').get('web');
      await client.deployments('default').update({ ...d, spec: { ...d.spec, replicas: 1 } });
      await eventually(async () => (await live()).length === 1, { what: 'one pod left', timeoutMs: 10_000 });
      // Bound pods on live nodes terminate gracefully: the server marks them, their agents stop them and then
      // remove the objects.
      await eventually(async () => (await pods()).length === 1, {
        what: 'the agents completing the deletion of 3 pods',
        timeoutMs: 10_000,
      });
      const deletes = (await client.events.list()).items.filter((e) => e.reason === 'SuccessfulDelete');
      assert.equal(
        deletes.reduce((n, e) => n + e.count, 0),
        3,
      );
      await eventually(
        async () => {
          const now: Deployment = await client.deployments('default').get('web');
          return now.status.replicas === 1 && now.status.observedGeneration === 2;
        },
        { what: 'status: 1 replica, generation 2 observed', timeoutMs: 10_000 },
      );
    });
  });
}
