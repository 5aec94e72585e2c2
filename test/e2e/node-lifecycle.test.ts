import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpApiClient } from '../../src/client/http-client.js';
import type { Node } from '../../src/core/node.js';
import { eventually } from '../support/eventually.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// End to end with real processes and short flags: a dead agent is marked Unknown within grace + one
// period, gets one NodeNotReady event and the NoExecute taint; when it comes back it is Ready, untainted,
// with a NodeReady event. Run once with the controller inside the server and once as its own process.
const CONTROLLER_FLAGS = [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  '2s',
  '--node-startup-grace-period',
  '3s',
  '--log-level',
  'warn',
];
const GRACE_MS = 2000;
const PERIOD_MS = 200;

function ready(node: Node | undefined): string | undefined {
  return node?.status.conditions?.find((c) => c.type === 'Ready')?.status;
}

function agent(server: ServerProc, name: string, zone: string): Proc {
  return startProcess(
    SHEPHERD_BIN,
    [
      '--mode',
      'agent',
      '--node-name',
      name,
      '--zone',
      zone,
      '--api-addr',
      server.addr,
      '--lease-duration',
      '2s',
      '--log-level',
      'info',
    ],
    { name },
  );
}

for (const layout of ['in-process controller', 'controller as its own process'] as const) {
  describe(`node lifecycle end to end (${layout})`, { timeout: 90_000 }, () => {
    const dir = tempDir();
    let server: ServerProc;
    let controller: Proc | undefined;
    let client: HttpApiClient;
    const agents = new Map<string, Proc>();

    before(async () => {
      const separate = layout === 'controller as its own process';
      server = await startServer([
        '--db',
        `${dir.path}/db.sqlite`,
        ...(separate ? ['--no-controller', '--log-level', 'warn'] : CONTROLLER_FLAGS),
      ]);
      if (separate)
        controller = startProcess(
          SHEPHERD_BIN,
          ['--mode', 'controller', '--api-addr', server.addr, ...CONTROLLER_FLAGS],
          { name: 'controller' },
        );
      client = new HttpApiClient({ addresses: [server.addr] });
      for (const [name, zone] of [
        ['node-a1', 'zone-a'],
        ['node-a2', 'zone-a'],
        ['node-b1', 'zone-b'],
      ] as const)
        agents.set(name, agent(server, name, zone));
      await eventually(async () => (await client.nodes.list()).items.filter((n) => ready(n) === 'True').length === 3, {
        what: 'three Ready nodes',
        timeoutMs: 20_000,
      });
    });

    after(async () => {
      await Promise.all([...agents.values()].map((a) => a.stop()));
      await controller?.stop();
      await client?.close();
      await server?.stop();
      dir.cleanup();
    });

    test('a killed agent goes Unknown within grace + one period, is tainted once, and recovers when it returns', async () => {
      const victim = agents.get('node-a1') as Proc;
      // node-a2 stays Ready, so zone-a (1 of 2 not Ready) stays Normal and zone-b is untouched: a lone failure,
      // tainted at the normal rate, never master disruption.
      const killedAt = Date.now();
      victim.signal('SIGKILL');
      await victim.exited;
      const unknown = await eventually(
        async () => {
          const n = await client.nodes.get('node-a1');
          return ready(n) === 'Unknown' ? n : undefined;
        },
        { what: 'node-a1 Unknown', timeoutMs: 15_000, intervalMs: 50 },
      );
      const detectedMs = Date.now() - killedAt;
      // The last renewal can be up to one renew interval (500ms) before the kill; allow polling and process slack.
      assert.ok(detectedMs <= GRACE_MS + PERIOD_MS + 500 + 1500, `marked Unknown after ${detectedMs}ms`);
      assert.equal(unknown.status.conditions?.find((c) => c.type === 'Ready')?.reason, 'NodeStatusUnknown');

      const tainted = await eventually(
        async () => {
          const n = await client.nodes.get('node-a1');
          return n.spec.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute')
            ? n
            : undefined;
        },
        { what: 'unreachable:NoExecute taint on node-a1', timeoutMs: 10_000 },
      );
      assert.ok(
        tainted.spec.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoSchedule'),
      );

      // While it stays dead, the NodeNotReady Warning does not repeat.
      await new Promise((r) => setTimeout(r, 3 * GRACE_MS));
      const notReady = (await client.events.list({ fieldSelector: 'involvedObject.name=node-a1,reason=NodeNotReady' }))
        .items;
      assert.equal(notReady.length, 1, JSON.stringify(notReady));
      assert.equal(notReady[0]?.type, 'Warning');
      assert.equal(notReady[0]?.count, 1);
      assert.match(notReady[0]?.message ?? '', /heartbeat timeout/);
      for (const other of ['node-a2', 'node-b1'])
        assert.equal(ready(await client.nodes.get(other)), 'True', `${other} stays Ready`);

      agents.set('node-a1', agent(server, 'node-a1', 'zone-a'));
      await eventually(
        async () => {
          const n = await client.nodes.get('node-a1');
          return ready(n) === 'True' && !(n.spec.taints ?? []).some((t) => t.key.startsWith('node.kubernetes.io/'));
        },
        { what: 'node-a1 Ready and untainted', timeoutMs: 20_000 },
      );
      await eventually(
        async () =>
          (await client.events.list({ fieldSelector: 'involvedObject.name=node-a1,reason=NodeReady' })).items.length ===
          1,
        {
          what: 'NodeReady event',
        },
      );
    });
  });
}
