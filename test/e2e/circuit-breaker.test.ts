import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpApiClient } from '../../src/client/http-client.js';
import { ANNOTATION_CIRCUIT_BREAKER } from '../../src/core/zone.js';
import { FreezeProxy } from '../support/freeze-proxy.js';
import { NodeHistory, readyOf, sleep } from '../support/node-history.js';
import { eventually } from '../support/eventually.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// End to end with real processes (docs/node-lifecycle.md#lease-circuit-breaker): a controller whose watch streams
// silently stop (a proxy freezes them while every other request passes) must not take the stale lease cache for a fleet
// of dead agents. With the lease circuit breaker on, no node is marked and the breaker says why; with the gate off the
// same freeze marks every node Unknown, which is what proves the test can fail. A SIGSTOPped controller is the second
// drill.
const GRACE_MS = 2000;
const CONTROLLER_FLAGS = [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  '2s',
  '--node-startup-grace-period',
  '3s',
  '--log-level',
  'info',
];
const NODES = [
  ['cb-a1', 'zone-a'],
  ['cb-a2', 'zone-a'],
  ['cb-b1', 'zone-b'],
] as const;
const SKIP_LINE = /Update health of Node from Controller error, Skipping - no pods will be evicted/;

interface Rig {
  server: ServerProc;
  proxy: FreezeProxy;
  controller: Proc;
  agents: Proc[];
  client: HttpApiClient;
  history: NodeHistory;
  cleanup(): Promise<void>;
}

function startController(proxy: FreezeProxy, gateOn: boolean): Proc {
  const gates = gateOn ? [] : ['--feature-gates', 'NodeControllerLeaseCircuitBreaker=false'];
  return startProcess(SHEPHERD_BIN, ['--mode', 'controller', '--api-addr', proxy.addr, ...CONTROLLER_FLAGS, ...gates], {
    name: 'controller',
  });
}

/** Waits until the controller has synced its informers through the proxy and runs passes again. */
async function controllerSynced(controller: Proc, proxy: FreezeProxy): Promise<void> {
  await controller.waitForLine(/caches synced; judging node health/, 20_000);
  await eventually(() => proxy.stats().watchesOpen >= 2, { what: 'two controller watches through the proxy' });
  await sleep(1000);
}

/** Server without controller, agents renewing directly against it, the controller behind the freeze proxy. */
async function startRig(): Promise<Rig> {
  const dir = tempDir('shepherd-breaker-');
  const server = await startServer(['--db', `${dir.path}/db.sqlite`, '--no-controller', '--log-level', 'warn']);
  const proxy = await FreezeProxy.start(server.addr);
  const client = new HttpApiClient({ addresses: [server.addr] });
  const agents = NODES.map(([name, zone]) =>
    startProcess(
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
        'warn',
      ],
      { name },
    ),
  );
  const rig = { server, proxy, controller: startController(proxy, true), agents, client } as Rig;
  rig.cleanup = async (): Promise<void> => {
    rig.controller.signal('SIGCONT');
    await rig.history?.stop();
    await Promise.all([...agents.map((a) => a.stop()), rig.controller.stop()]);
    await client.close();
    await proxy.close();
    await server.stop();
    dir.cleanup();
  };
  try {
    await eventually(
      async () => (await client.nodes.list()).items.filter((n) => readyOf(n) === 'True').length === NODES.length,
      {
        what: 'three Ready nodes',
        timeoutMs: 45_000,
      },
    );
    await controllerSynced(rig.controller, proxy);
    // Whole passes have run: the zones are written.
    await eventually(async () => (await client.zones.list()).items.length === 2, { what: 'zones written' });
    rig.history = await NodeHistory.start(client);
  } catch (err) {
    await rig.cleanup();
    throw err;
  }
  return rig;
}

async function breakerAnnotations(client: HttpApiClient): Promise<string[]> {
  const zones = (await client.zones.list()).items;
  return zones.flatMap((z) =>
    z.metadata.annotations?.[ANNOTATION_CIRCUIT_BREAKER] === undefined
      ? []
      : [`${z.metadata.name}: ${z.metadata.annotations[ANNOTATION_CIRCUIT_BREAKER]}`],
  );
}

/** Polls the server directly for `ms`, failing at the first node that is not Ready. */
async function assertAllReadyFor(rig: Rig, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    for (const n of (await rig.client.nodes.list()).items) {
      assert.equal(
        readyOf(n),
        'True',
        `${what}: ${n.metadata.name} is ${readyOf(n)}; controller log:\n${rig.controller.text.slice(-2000)}`,
      );
    }
    await sleep(100);
  }
  assert.deepEqual(
    rig.history.notReady().map((c) => c.node.metadata.name),
    [],
    `${what}: a watch saw a node that was not Ready`,
  );
}

describe('lease circuit breaker end to end', { timeout: 120_000 }, () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.cleanup());

  test('frozen watches for three grace periods: no node marked, LeaseCacheStale, then the breaker closes', async () => {
    const { proxy, client, controller } = rig;
    proxy.freezeWatches();
    await assertAllReadyFor(rig, 3 * GRACE_MS, 'watches frozen');
    assert.ok(proxy.stats().watchesOpen >= 2, 'the controller watches stay open (frozen, not cut)');

    const stale = (await client.events.list({ fieldSelector: 'reason=LeaseCacheStale' })).items;
    assert.ok(stale.length >= 1, 'a LeaseCacheStale event is written while the cache is stale');
    assert.equal(stale[0]?.type, 'Warning');
    assert.equal(stale[0]?.involvedObject.kind, 'Node');
    assert.match(stale[0]?.message ?? '', /cached resourceVersion \d+, live resourceVersion \d+/);
    assert.match(controller.text, SKIP_LINE);
    assert.notDeepEqual(await breakerAnnotations(client), [], 'zones show the breaker holding');

    proxy.unfreezeWatches();
    await eventually(async () => (await breakerAnnotations(client)).length === 0, {
      what: 'breaker annotation gone after unfreeze',
      timeoutMs: 10_000,
    });
    await assertAllReadyFor(rig, 2 * GRACE_MS, 'after unfreeze');
    assert.equal((await client.events.list({ fieldSelector: 'reason=NodeNotReady' })).items.length, 0);
  });

  test('a SIGSTOPped controller for two grace periods marks no node when it continues', async () => {
    const { controller } = rig;
    controller.signal('SIGSTOP');
    await sleep(2 * GRACE_MS);
    controller.signal('SIGCONT');
    await assertAllReadyFor(rig, 2 * GRACE_MS, 'after SIGCONT');
    assert.equal((await rig.client.events.list({ fieldSelector: 'reason=NodeNotReady' })).items.length, 0);
  });

  // The control run: the same freeze against a controller without the breaker must mark every node.
  test('the same freeze with NodeControllerLeaseCircuitBreaker=false marks every node Unknown', async () => {
    const { proxy, client } = rig;
    await rig.controller.stop();
    rig.controller = startController(proxy, false);
    await controllerSynced(rig.controller, proxy);
    const staleBefore = (await client.events.list({ fieldSelector: 'reason=LeaseCacheStale' })).items;
    await rig.history.stop();
    const history = (rig.history = await NodeHistory.start(client));
    proxy.freezeWatches();
    await eventually(() => new Set(history.notReady().map((c) => c.node.metadata.name)).size === NODES.length, {
      what: 'every node marked Unknown from the stale cache',
      timeoutMs: 3 * GRACE_MS + 2000,
    });
    for (const c of history.notReady()) assert.equal(readyOf(c.node), 'Unknown');
    assert.deepEqual(
      (await client.events.list({ fieldSelector: 'reason=LeaseCacheStale' })).items,
      staleBefore,
      'no breaker event with the gate off',
    );
    assert.doesNotMatch(rig.controller.text, SKIP_LINE);
    proxy.unfreezeWatches();
  });
});
