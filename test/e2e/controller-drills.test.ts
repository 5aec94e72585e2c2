import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpApiClient } from '../../src/client/http-client.js';
import type { Taint } from '../../src/core/node.js';
import { NodeHistory, readyOf, sleep, unreachableNoExecute } from '../support/node-history.js';
import { eventually } from '../support/eventually.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// Drills 2, 3 and 4 with real processes (docs/node-lifecycle.md#restarts-pauses-failovers): the control plane's own
// absence (server down, server frozen, controller restarted) must never be read as the agents' death, and a restart
// must neither strip and re-add the NoExecute taints of nodes that are really dead nor let a burst of new taints
// through.
const GRACE_MS = 2000;
const CONTROLLER_FLAGS = [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  '2s',
  '--node-startup-grace-period',
  '3s',
];

function agent(addr: string, name: string, zone: string): Proc {
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
      addr,
      '--lease-duration',
      '2s',
      '--log-level',
      'warn',
    ],
    { name },
  );
}

async function allReady(client: HttpApiClient, count: number): Promise<void> {
  await eventually(
    async () => (await client.nodes.list()).items.filter((n) => readyOf(n) === 'True').length === count,
    {
      what: `${count} Ready nodes`,
      timeoutMs: 45_000,
    },
  );
}

function tails(procs: Proc[]): string {
  return procs.map((p) => `--- ${p.name}\n${p.text.slice(-1500)}`).join('\n');
}

/** Polls the server for `ms`: every listed node must stay Ready; then no watched change may show otherwise. */
async function assertAllReadyFor(
  client: HttpApiClient,
  history: NodeHistory,
  ms: number,
  what: string,
  procs: Proc[] = [],
): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const bad = (await client.nodes.list()).items
      .filter((n) => readyOf(n) !== 'True')
      .map((n) => `${n.metadata.name}=${readyOf(n)}`);
    assert.deepEqual(bad, [], `${what}: nodes not Ready\n${tails(procs)}`);
    await sleep(100);
  }
  const seen = history.notReady().map((c) => `${c.node.metadata.name}=${readyOf(c.node)}`);
  assert.deepEqual(seen, [], `${what}: a watch saw a node that was not Ready\n${tails(procs)}`);
}

/** A server with the in-process controller and three agents, all Ready. */
async function startInProcess(
  dir: string,
  grace: string,
): Promise<{ server: ServerProc; client: HttpApiClient; agents: Proc[]; args: string[] }> {
  const args = [
    '--db',
    `${dir}/db.sqlite`,
    '--node-monitor-period',
    '200ms',
    '--node-monitor-grace-period',
    grace,
    '--node-startup-grace-period',
    grace,
    '--log-level',
    'info',
  ];
  const server = await startServer(args);
  const client = new HttpApiClient({ addresses: [server.addr], retry: { maxAttempts: 1 } });
  const agents = [
    ['dr-a1', 'zone-a'],
    ['dr-a2', 'zone-a'],
    ['dr-b1', 'zone-b'],
  ].map(([name, zone]) => agent(server.addr, name as string, zone as string));
  await allReady(client, 3);
  return { server, client, agents, args };
}

describe('drill 3: whole-server pause (in-process controller)', { timeout: 90_000 }, () => {
  const dir = tempDir('shepherd-drill3-');
  let rig: Awaited<ReturnType<typeof startInProcess>>;

  before(async () => {
    rig = await startInProcess(dir.path, '2s');
  });

  after(async () => {
    rig?.server.signal('SIGCONT');
    await Promise.all(rig?.agents.map((a) => a.stop()) ?? []);
    await rig?.client.close();
    await rig?.server.stop();
    dir.cleanup();
  });

  test('SIGSTOP the server for two grace periods: no node marked, and ControllerPaused says why', async () => {
    const { server, client } = rig;
    const history = await NodeHistory.start(client);
    try {
      server.signal('SIGSTOP');
      await sleep(2 * GRACE_MS);
      server.signal('SIGCONT');
      await assertAllReadyFor(client, history, 2 * GRACE_MS, 'after SIGCONT', [server, ...rig.agents]);
      const paused = await eventually(
        async () => (await client.events.list({ fieldSelector: 'reason=ControllerPaused' })).items[0],
        {
          what: 'ControllerPaused event',
          timeoutMs: 5000,
        },
      );
      assert.equal(paused.type, 'Warning');
      assert.match(paused.message, /did not run for \d+s/);
      assert.equal((await client.events.list({ fieldSelector: 'reason=NodeNotReady' })).items.length, 0);
    } finally {
      await history.stop();
    }
  });
});

// The agent's lease backoff caps at 7 s (kubelet backoffEnsureLease), so after an outage an agent may take up to 7 s +
// one request deadline to come back. Upstream keeps grace (50 s) far above that
// (https://github.com/kubernetes/kubernetes/issues/121793); a 2 s grace here would time out agents that are merely
// still backing off, so this drill uses 10 s.
describe('drill 2: server outage longer than the grace period (in-process controller)', { timeout: 150_000 }, () => {
  const dir = tempDir('shepherd-drill2-');
  const graceMs = 10_000;
  let rig: Awaited<ReturnType<typeof startInProcess>>;

  before(async () => {
    rig = await startInProcess(dir.path, '10s');
  });

  after(async () => {
    await Promise.all(rig?.agents.map((a) => a.stop()) ?? []);
    await rig?.client.close();
    await rig?.server.stop();
    dir.cleanup();
  });

  test('server killed for two grace periods, started again on the same port and DB: no node marked', async () => {
    const { client, args } = rig;
    const history = await NodeHistory.start(client);
    try {
      rig.server.signal('SIGKILL');
      await rig.server.exited;
      await sleep(2 * graceMs);
      const restartedAt = Date.now();
      rig.server = await startServer(['--listen', rig.server.addr, ...args]);
      await assertAllReadyFor(client, history, 2 * graceMs, 'after the restart', [rig.server, ...rig.agents]);
      // Every agent came back and renewed on the new server: the drill did exercise the recovery.
      for (const l of (await client.leases().list()).items)
        assert.ok(Date.parse(l.spec.renewTime) > restartedAt, `${l.metadata.name} renewed after the restart`);
      assert.equal((await client.events.list({ fieldSelector: 'reason=NodeNotReady' })).items.length, 0);
    } finally {
      await history.stop();
    }
  });
});

describe('drill 4: controller restart while nodes are dead and tainted', { timeout: 120_000 }, () => {
  const dir = tempDir('shepherd-drill4-');
  const rate = 0.5;
  // 0.9: three of four not Ready stays Normal (no detour through PartialDisruption's rate 0 in a small zone).
  const flags = [
    ...CONTROLLER_FLAGS,
    '--node-eviction-rate',
    String(rate),
    '--unhealthy-zone-threshold',
    '0.9',
    '--log-level',
    'info',
  ];
  let server: ServerProc;
  let controller: Proc;
  let client: HttpApiClient;
  const agents = new Map<string, Proc>();
  const startController = (): Proc =>
    startProcess(SHEPHERD_BIN, ['--mode', 'controller', '--api-addr', server.addr, ...flags], { name: 'controller' });

  before(async () => {
    server = await startServer(['--db', `${dir.path}/db.sqlite`, '--no-controller', '--log-level', 'warn']);
    client = new HttpApiClient({ addresses: [server.addr] });
    controller = startController();
    for (const [name, zone] of [
      ['d4-a1', 'zone-a'],
      ['d4-a2', 'zone-a'],
      ['d4-a3', 'zone-a'],
      ['d4-a4', 'zone-a'],
      ['d4-b1', 'zone-b'],
    ] as const) {
      agents.set(name, agent(server.addr, name, zone));
    }
    await allReady(client, 5);
    await controller.waitForLine(/caches synced; judging node health/, 20_000);
  });

  after(async () => {
    await Promise.all([...agents.values()].map((a) => a.stop()));
    await controller?.stop();
    await client?.close();
    await server?.stop();
    dir.cleanup();
  });

  async function taintOf(name: string): Promise<Taint> {
    try {
      return await eventually(
        async () => {
          const n = await client.nodes.get(name);
          return readyOf(n) === 'Unknown' ? unreachableNoExecute(n) : undefined;
        },
        { what: `${name} Unknown and tainted unreachable:NoExecute`, timeoutMs: 20_000, intervalMs: 50 },
      );
    } catch (err) {
      const nodes = (await client.nodes.list()).items.map(
        (n) => `${n.metadata.name}=${readyOf(n)} ${JSON.stringify(n.spec.taints ?? [])}`,
      );
      const zones = (await client.zones.list()).items.map((z) => JSON.stringify(z.status));
      throw new Error(`${(err as Error).message}\n${nodes.join('\n')}\n${zones.join('\n')}\n${tails([controller])}`, {
        cause: err,
      });
    }
  }

  async function kill(...names: string[]): Promise<void> {
    await Promise.all(
      names.map(async (n) => {
        const a = agents.get(n) as Proc;
        a.signal('SIGKILL');
        await a.exited;
        agents.delete(n);
      }),
    );
  }

  test('taints are kept with the same timeAdded, no Ready node is marked, and new taints keep the zone rate', async () => {
    await kill('d4-a1', 'd4-a2');
    const before = new Map([
      ['d4-a1', await taintOf('d4-a1')],
      ['d4-a2', await taintOf('d4-a2')],
    ]);

    const history = await NodeHistory.start(client);
    try {
      await controller.stop('SIGTERM');
      controller = startController();
      await controller.waitForLine(/caches synced; judging node health/, 20_000);
      // Past the fresh grace the restart gave every node, so the dead ones have been judged again.
      await sleep(GRACE_MS + 1500);
      for (const [name, taint] of before) {
        const now = await client.nodes.get(name);
        assert.equal(readyOf(now), 'Unknown', `${name} stays Unknown`);
        assert.deepEqual(unreachableNoExecute(now), taint, `${name} keeps its taint with the same timeAdded`);
      }
      for (const c of history.changes) {
        const name = c.node.metadata.name;
        if (before.has(name))
          assert.deepEqual(
            unreachableNoExecute(c.node),
            before.get(name),
            `a ${c.type} of ${name} during the restart changed its taint`,
          );
        else assert.equal(readyOf(c.node), 'True', `${name} is Ready and must not be marked (${c.type})`);
      }

      await kill('d4-a3', 'd4-a4');
      const t3 = await taintOf('d4-a3');
      const t4 = await taintOf('d4-a4');
      const [first, second] = [Date.parse(t3.timeAdded as string), Date.parse(t4.timeAdded as string)].sort(
        (a, b) => a - b,
      ) as [number, number];
      // One token every 1/rate seconds, burst 1: the second new taint waits a full interval (100 ms of tainter slack).
      assert.ok(second - first >= 1000 / rate - 100, `two taints ${second - first}ms apart at ${rate}/s`);
      for (const [name, taint] of before)
        assert.deepEqual(unreachableNoExecute(await client.nodes.get(name)), taint, `${name} taint unchanged`);
      assert.equal(readyOf(await client.nodes.get('d4-b1')), 'True');
    } finally {
      await history.stop();
    }
  });
});
