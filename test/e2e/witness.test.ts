import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Writable } from '../../src/client/api-client.js';
import { HttpApiClient } from '../../src/client/http-client.js';
import { readyCondition, type Node } from '../../src/core/node.js';
import type { Pod } from '../../src/core/pod.js';
import { WITNESS_ADDRESS_ANNOTATION, WITNESS_REPORT_ANNOTATION } from '../../src/core/witness-report.js';
import { CutProxy } from '../support/cut-proxy.js';
import { eventually } from '../support/eventually.js';
import { NodeHistory, readyOf } from '../support/node-history.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// Drills with real processes on loopback (docs/witnesses.md): three agents in three zones, the one in zone-a talking to
// the server through a proxy that can cut its link while the agents still reach each other. With witnesses on, the
// cut node is held (Ready=Unknown NodePartitioned, unreachable:NoSchedule only) and its placeholder pods stay, then it
// returns cleanly; killed for real, it gets NoExecute and its pods go. With witnesses off the same cut is a death, as
// before; a partition longer than --node-partition-max-hold ends as a death. Pods tolerate unreachable:NoExecute for
// 0 s, so any NoExecute taint would evict them at once.
const GRACE_MS = 2000;
const SERVER_FLAGS = [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  '2s',
  '--node-startup-grace-period',
  '3s',
  '--default-unreachable-toleration-seconds',
  '0',
  // Tokens come back at once: the cut drill of the witness-off rig must not make its kill drill wait for one.
  '--node-eviction-rate',
  '10',
  '--log-level',
  'warn',
];
const WITNESS_FLAGS = [
  '--witness-bind-address',
  '127.0.0.1:0',
  '--witness-probe-interval',
  '200ms',
  '--witness-probe-timeout',
  '300ms',
];
const NODES = [
  ['wt-a', 'zone-a'],
  ['wt-b', 'zone-b'],
  ['wt-c', 'zone-c'],
] as const;
const CUT = 'wt-a';
const PODS = ['hold-1', 'hold-2'];

const taintsOf = (n: Node | undefined): string[] => (n?.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
const hasNoExecute = (n: Node | undefined): boolean => (n?.spec.taints ?? []).some((t) => t.effect === 'NoExecute');

interface Rig {
  server: ServerProc;
  proxy: CutProxy;
  client: HttpApiClient;
  agents: Map<string, Proc>;
  history: NodeHistory;
  startAgent(name: string, zone: string): Proc;
  cleanup(): Promise<void>;
}

async function startRig(witnesses: boolean, serverFlags: string[] = []): Promise<Rig> {
  const dir = tempDir('shepherd-witness-');
  const server = await startServer(['--db', `${dir.path}/db.sqlite`, ...SERVER_FLAGS, ...serverFlags]);
  const proxy = await CutProxy.start(server.addr);
  const client = new HttpApiClient({ addresses: [server.addr] });
  const agents = new Map<string, Proc>();
  const startAgent = (name: string, zone: string): Proc => {
    const p = startProcess(
      SHEPHERD_BIN,
      [
        '--mode',
        'agent',
        '--node-name',
        name,
        '--zone',
        zone,
        '--api-addr',
        name === CUT ? proxy.addr : server.addr,
        '--lease-duration',
        '2s',
        '--log-level',
        'info',
        '--log-format',
        'json',
        ...(witnesses ? WITNESS_FLAGS : []),
      ],
      { name },
    );
    agents.set(name, p);
    return p;
  };
  for (const [name, zone] of NODES) startAgent(name, zone);
  const rig = { server, proxy, client, agents, startAgent } as Rig;
  rig.cleanup = async (): Promise<void> => {
    await rig.history?.stop();
    await Promise.all([...agents.values()].map((a) => a.stop()));
    await client.close();
    await proxy.close();
    await server.stop();
    dir.cleanup();
  };
  try {
    await eventually(
      async () => (await client.nodes.list()).items.filter((n) => readyOf(n) === 'True').length === NODES.length,
      { what: 'three Ready nodes', timeoutMs: 45_000 },
    );
    if (witnesses)
      // Every node is witnessed by the two others (one per other zone): both reports name it reachable.
      await eventually(
        async () => {
          const items = (await client.nodes.list()).items;
          return NODES.every(
            ([name]) =>
              items.filter((n) =>
                n.metadata.annotations?.[WITNESS_REPORT_ANNOTATION]?.includes(`"${name}":{"reachable":true`),
              ).length === 2,
          );
        },
        { what: 'every node reported reachable by its two witnesses', timeoutMs: 30_000 },
      );
    for (const name of PODS) await client.pods('default').create(placeholder(name));
    await eventually(
      async () => (await client.pods('default').list()).items.filter((p) => p.status.phase === 'Running').length === 2,
      { what: 'placeholder pods running on the node to cut', timeoutMs: 20_000 },
    );
    rig.history = await NodeHistory.start(client);
  } catch (err) {
    await rig.cleanup();
    throw err;
  }
  return rig;
}

function placeholder(name: string): Writable<Pod> {
  return {
    metadata: { name, namespace: 'default' },
    spec: { nodeName: CUT, containers: [{ name: 'main', image: 'placeholder' }] },
    status: { phase: 'Pending' },
  } as Writable<Pod>;
}

/** The pods not being deleted, as name/uid. */
async function podNames(client: HttpApiClient): Promise<string[]> {
  return (await client.pods('default').list()).items
    .filter((p) => p.metadata.deletionTimestamp === undefined)
    .map((p) => `${p.metadata.name}/${p.metadata.uid}`)
    .sort();
}

/** Evicted: every pod deleted, or being deleted (an unreachable agent never confirms the end of its pods). */
async function evicted(client: HttpApiClient): Promise<boolean> {
  return (await podNames(client)).length === 0;
}

/** Kills the agent for real; resolves with the ms from the kill until its node carries a NoExecute taint. */
async function killAndTime(rig: Rig): Promise<number> {
  const start = Date.now();
  (rig.agents.get(CUT) as Proc).signal('SIGKILL');
  await eventually(async () => hasNoExecute(await rig.client.nodes.get(CUT)), {
    what: `${CUT} tainted NoExecute after its agent was killed`,
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  return Date.now() - start;
}

/**
 * A node with no agent behind it, kept Ready by renewing its lease from the test, whose report says `about`: a liar
 * (node restriction lets a node write only its own report, so this is all a lying node can do).
 */
async function startLiar(
  client: HttpApiClient,
  name: string,
  zone: string,
  about: Record<string, boolean>,
): Promise<AbortController> {
  const now = (): string => new Date().toISOString();
  const report = JSON.stringify(
    Object.fromEntries(Object.entries(about).map(([n, reachable]) => [n, { reachable, since: now() }])),
  );
  const node = await client.nodes.create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'topology.kubernetes.io/zone': zone },
      annotations: { [WITNESS_ADDRESS_ANNOTATION]: '127.0.0.1:9', [WITNESS_REPORT_ANNOTATION]: report },
    },
    spec: {},
    status: {},
  });
  const ready = { type: 'Ready', status: 'True' as const, reason: 'Liar', message: 'lies' };
  await client.nodes.updateStatus({
    ...node,
    status: { conditions: [{ ...ready, lastHeartbeatTime: now(), lastTransitionTime: now() }] },
  });
  const leases = client.leases('node-lease');
  let lease = await leases.create({
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: { name, namespace: 'node-lease' },
    spec: { holderIdentity: name, leaseDurationSeconds: 2, renewTime: now() },
  });
  const stop = new AbortController();
  void (async () => {
    while (!stop.signal.aborted) {
      await new Promise((r) => setTimeout(r, 300));
      lease = await leases.update({ ...lease, spec: { ...lease.spec, renewTime: now() } }).catch(() => lease);
    }
  })();
  await eventually(async () => readyOf(await client.nodes.get(name)) === 'True', { what: `${name} Ready` });
  return stop;
}

/** Writes of the witness report per node per minute, from the node changes seen over `windowMs` of a healthy fleet. */
async function healthyReportWrites(rig: Rig, windowMs: number): Promise<number> {
  const from = rig.history.changes.length;
  const start = Date.now();
  await eventually(() => Date.now() - start >= windowMs, { what: 'a healthy window', timeoutMs: windowMs + 5_000 });
  const last = new Map<string, string | undefined>();
  let writes = 0;
  for (const c of rig.history.changes.slice(0, from))
    last.set(c.node.metadata.name, c.node.metadata.annotations?.[WITNESS_REPORT_ANNOTATION]);
  for (const c of rig.history.changes.slice(from)) {
    const report = c.node.metadata.annotations?.[WITNESS_REPORT_ANNOTATION];
    if (last.has(c.node.metadata.name) && last.get(c.node.metadata.name) !== report) writes++;
    last.set(c.node.metadata.name, report);
  }
  return (writes / NODES.length) * (60_000 / windowMs);
}

describe('peer witnesses end to end', { timeout: 180_000 }, () => {
  let rig: Rig;
  const figures: Record<string, number> = {};
  before(async () => {
    rig = await startRig(true);
  });
  after(async () => {
    await rig?.cleanup();
    // What a witness that stayed healthy did over its whole run (the agent logs its counters when it stops).
    const stats = rig?.agents.get('wt-b')?.output.find((l) => l.includes('witness probes stopped'));
    process.stdout.write(`# witness figures: ${JSON.stringify(figures)}; wt-b: ${stats ?? 'no stats'}\n`);
  });

  test('a healthy fleet publishes its probe addresses and then writes (almost) nothing', async () => {
    const nodes = (await rig.client.nodes.list()).items;
    for (const n of nodes)
      assert.match(n.metadata.annotations?.[WITNESS_ADDRESS_ANNOTATION] ?? '', /^127\.0\.0\.1:\d+$/);
    figures.reportWritesPerNodePerMinute = await healthyReportWrites(rig, 6_000);
    assert.equal(figures.reportWritesPerNodePerMinute, 0, 'no report changes while nothing changes');
  });

  test('the node cut from the control plane but reachable by its peers is held, not evicted, and returns cleanly', async () => {
    const pods = await podNames(rig.client);
    const cutAt = Date.now();
    rig.proxy.cut();
    const held = await eventually(
      async () => {
        const n = await rig.client.nodes.get(CUT);
        return readyOf(n) === 'Unknown' && taintsOf(n).includes('node.kubernetes.io/unreachable:NoSchedule') && n;
      },
      { what: `${CUT} marked Unknown and tainted NoSchedule`, timeoutMs: 20_000 },
    );
    figures.cutToHeldMs = Date.now() - cutAt;
    assert.equal(readyCondition(held)?.reason, 'NodePartitioned');
    // Held for three more graces: never a NoExecute taint, the pods stay.
    const heldAt = Date.now();
    await eventually(() => Date.now() - heldAt >= 3 * GRACE_MS, { what: 'three graces held', timeoutMs: 20_000 });
    assert.deepEqual(taintsOf(await rig.client.nodes.get(CUT)), ['node.kubernetes.io/unreachable:NoSchedule']);
    assert.deepEqual(await podNames(rig.client), pods, 'no pod evicted');
    const verdicts = (await rig.client.verdicts.list()).items.filter(
      (v) => v.node === CUT && v.action === 'Partitioned',
    );
    assert.equal(verdicts.length, 1);
    assert.deepEqual(
      verdicts[0]?.evidence.witnesses?.filter((w) => w.reachable).map((w) => `${w.node}@${w.zone}`),
      ['wt-b@zone-b', 'wt-c@zone-c'],
    );
    const events = (await rig.client.events.list()).items.filter((e) => e.reason === 'NodePartitioned');
    assert.equal(events.length, 1);
    rig.proxy.heal();
    await eventually(async () => readyOf(await rig.client.nodes.get(CUT)) === 'True', {
      what: `${CUT} Ready again`,
      timeoutMs: 20_000,
    });
    await eventually(async () => taintsOf(await rig.client.nodes.get(CUT)).length === 0, {
      what: `${CUT} untainted`,
    });
    assert.deepEqual(await podNames(rig.client), pods, 'the same pods, never replaced');
    const everNoExecute = rig.history.changes.some((c) => c.node.metadata.name === CUT && hasNoExecute(c.node));
    assert.equal(everNoExecute, false, 'no change ever showed a NoExecute taint on the held node');
  });

  test('the same node really killed is tainted NoExecute on schedule and its pods go, whatever a lying witness says', async () => {
    // A fourth node, in a zone of its own, whose "agent" (this test) renews its lease and claims wt-a is alive.
    const liar = await startLiar(rig.client, 'wt-liar', 'zone-d', { [CUT]: true });
    try {
      figures.killToNoExecuteWithWitnessesMs = await killAndTime(rig);
    } finally {
      liar.abort();
    }
    await eventually(() => evicted(rig.client), { what: 'the killed node’s pods evicted' });
    const n = await rig.client.nodes.get(CUT);
    assert.equal(readyCondition(n)?.reason, 'NodeStatusUnknown');
    const partitioned = (await rig.client.verdicts.list()).items.filter(
      (v) => v.node === CUT && v.action === 'Partitioned',
    );
    assert.equal(partitioned.length, 1, 'only the hold of the cut: the liar alone is no quorum');
    assert.ok(figures.killToNoExecuteWithWitnessesMs < GRACE_MS + 5_000);
  });
});

describe('with witnesses off the same drills behave as before', { timeout: 180_000 }, () => {
  let rig: Rig;
  const figures: Record<string, number> = {};
  before(async () => {
    rig = await startRig(false);
  });
  after(async () => {
    await rig?.cleanup();
    process.stdout.write(`# witness-off figures: ${JSON.stringify(figures)}\n`);
  });

  test('the cut node is judged dead: NoExecute, pods evicted, no annotation published', async () => {
    const nodes = (await rig.client.nodes.list()).items;
    for (const n of nodes) assert.equal(n.metadata.annotations?.[WITNESS_ADDRESS_ANNOTATION], undefined);
    rig.proxy.cut();
    await eventually(async () => hasNoExecute(await rig.client.nodes.get(CUT)), {
      what: `${CUT} tainted NoExecute`,
      timeoutMs: 20_000,
    });
    assert.equal(readyCondition(await rig.client.nodes.get(CUT))?.reason, 'NodeStatusUnknown');
    await eventually(() => evicted(rig.client), { what: 'the cut node’s pods evicted' });
    rig.proxy.heal();
    await eventually(async () => readyOf(await rig.client.nodes.get(CUT)) === 'True', {
      what: `${CUT} Ready again`,
      timeoutMs: 20_000,
    });
    await eventually(async () => taintsOf(await rig.client.nodes.get(CUT)).length === 0, {
      what: `${CUT} untainted`,
    });
  });

  test('killed for real: NoExecute on the same schedule as with witnesses', async () => {
    figures.killToNoExecuteWithoutWitnessesMs = await killAndTime(rig);
    assert.ok(figures.killToNoExecuteWithoutWitnessesMs < GRACE_MS + 5_000);
  });
});

describe('a partition longer than --node-partition-max-hold', { timeout: 120_000 }, () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig(true, ['--node-partition-max-hold', '3s']);
  });
  after(() => rig?.cleanup());

  test('is held first, then treated as dead: NoExecute and its pods evicted', async () => {
    rig.proxy.cut();
    await eventually(async () => readyCondition(await rig.client.nodes.get(CUT))?.reason === 'NodePartitioned', {
      what: `${CUT} held as partitioned`,
      timeoutMs: 20_000,
    });
    const heldAt = Date.now();
    assert.equal(hasNoExecute(await rig.client.nodes.get(CUT)), false);
    await eventually(async () => hasNoExecute(await rig.client.nodes.get(CUT)), {
      what: `${CUT} tainted NoExecute after the max hold`,
      timeoutMs: 20_000,
    });
    // The hold began at the mark, at most one poll before it was seen here.
    assert.ok(Date.now() - heldAt >= 2_500, 'not before the max hold');
    await eventually(() => evicted(rig.client), { what: 'its pods evicted' });
    const reasons = (await rig.client.verdicts.list()).items
      .filter((v) => v.node === CUT && v.action === 'Partitioned')
      .map((v) => v.reason);
    assert.deepEqual(reasons, ['NodePartitioned', 'PartitionMaxHold']);
  });
});
