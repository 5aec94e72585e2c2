import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { HttpApiClient } from '../../src/client/http-client.js';
import type { Verdict } from '../../src/core/verdict.js';
import { eventually } from '../support/eventually.js';
import { FreezeProxy } from '../support/freeze-proxy.js';
import { NodeHistory, readyOf, unreachableNoExecute } from '../support/node-history.js';
import {
  runSheepctl,
  SHEPHERD_BIN,
  startProcess,
  startServer,
  tempDir,
  type Proc,
  type ServerProc,
} from '../support/processes.js';

// End to end with real processes (docs/verdicts.md): `sheepctl explain node` after a killed agent and under a stale
// lease cache, and a dry-run controller with a shorter grace beside the live one.
const controllerFlags = (grace: string): string[] => [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  grace,
  '--node-startup-grace-period',
  '6s',
  '--log-level',
  'warn',
];
const NODES = [
  ['vd-a1', 'zone-a'],
  ['vd-a2', 'zone-a'],
  ['vd-b1', 'zone-b'],
] as const;

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
      'warn',
    ],
    { name },
  );
}

async function verdictsOf(client: HttpApiClient, node: string): Promise<Verdict[]> {
  return (await client.verdicts.list({ fieldSelector: `node=${node}` })).items;
}

async function explain(server: ServerProc, ...args: string[]): Promise<string> {
  const r = await runSheepctl(['--server', server.addr, 'explain', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

interface Rig {
  server: ServerProc;
  client: HttpApiClient;
  agents: Map<string, Proc>;
  procs: Proc[];
  cleanup(): Promise<void>;
}

async function startRig(serverArgs: string[]): Promise<Rig> {
  const dir = tempDir('shepherd-verdicts-');
  const server = await startServer(['--db', `${dir.path}/db.sqlite`, ...serverArgs]);
  const client = new HttpApiClient({ addresses: [server.addr] });
  const agents = new Map(NODES.map(([n, z]) => [n, agent(server, n, z)]));
  const rig: Rig = {
    server,
    client,
    agents,
    procs: [],
    cleanup: async () => {
      await Promise.all([...agents.values(), ...rig.procs].map((p) => p.stop()));
      await client.close();
      await server.stop();
      dir.cleanup();
    },
  };
  try {
    await eventually(
      async () => (await client.nodes.list()).items.filter((n) => readyOf(n) === 'True').length === NODES.length,
      { what: 'three Ready nodes', timeoutMs: 45_000 },
    );
  } catch (err) {
    await rig.cleanup();
    throw err;
  }
  return rig;
}

describe('verdicts end to end: a killed agent', { timeout: 120_000 }, () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig(controllerFlags('2s'));
  });
  after(async () => rig?.cleanup());

  test('explain node says when it went silent, the grace, the verdict and the taint time', async () => {
    const { client, server } = rig;
    const victim = rig.agents.get('vd-a1') as Proc;
    victim.signal('SIGKILL');
    await victim.exited;
    const tainted = await eventually(
      async () => {
        const n = await client.nodes.get('vd-a1');
        return readyOf(n) === 'Unknown' && unreachableNoExecute(n) ? n : undefined;
      },
      { what: 'vd-a1 Unknown and tainted', timeoutMs: 20_000 },
    );
    const vs = await eventually(
      async () => {
        const v = await verdictsOf(client, 'vd-a1');
        return v.some((x) => x.action === 'Taint') ? v : undefined;
      },
      { what: 'the MarkUnknown and Taint verdicts', timeoutMs: 10_000 },
    );
    const mark = vs.find((v) => v.action === 'MarkUnknown') as Verdict;
    assert.equal(mark.reason, 'HeartbeatTimeout');
    assert.equal(mark.dryRun, false);
    assert.equal(mark.evidence.graceSeconds, 2);
    assert.ok((mark.evidence.silentForSeconds ?? 0) > 2, JSON.stringify(mark.evidence));
    assert.equal(mark.evidence.lease?.liveResourceVersion, mark.evidence.lease?.cachedResourceVersion);
    assert.equal(mark.metadata.labels?.['shepherd.io/node'], 'vd-a1');

    const text = await explain(server, 'node', 'vd-a1');
    const hhmmss = (iso: string | undefined): string => `${(iso ?? '').slice(11, 19)}Z`;
    const taintAt = hhmmss(unreachableNoExecute(tainted)?.timeAdded);
    assert.match(
      text.split('\n')[0] ?? '',
      new RegExp(
        `^vd-a1 is Unknown since ${hhmmss(mark.evidence.observedAt)}; tainted node\\.kubernetes\\.io/unreachable:NoExecute since ${taintAt}\\.$`,
      ),
    );
    assert.match(
      text,
      new RegExp(`Last renewal: +${hhmmss(mark.evidence.lastRenewalObservedAt)}, observed by the controller`),
    );
    assert.match(text, /Grace: +2s: ran out at /);
    assert.match(
      text,
      /MarkUnknown \(HeartbeatTimeout\)\n.*heartbeat timeout: no lease renewal or status heartbeat observed for \d+s \(grace 2s\)/,
    );
    assert.match(
      text,
      /Taint \(Unreachable\)\n.*tainted node\.kubernetes\.io\/unreachable:NoExecute \(zone zone-a at 0\.1\/s/,
    );

    const data = JSON.parse(await explain(server, 'node', 'vd-a1', '-o', 'json')) as {
      now: { noExecute?: { addedAt?: string } };
      verdicts: Verdict[];
    };
    assert.equal(data.now.noExecute?.addedAt, unreachableNoExecute(tainted)?.timeAdded);
    assert.deepEqual(
      data.verdicts.map((v) => v.action),
      // Suspect first: the node missed its renewals before its grace ran out (docs/node-lifecycle.md#suspect).
      ['Suspect', 'MarkUnknown', 'Taint'],
    );

    const described = await runSheepctl(['--server', server.addr, 'describe', 'node', 'vd-a1']);
    assert.match(described.stdout, /Last Verdict:\n {2}Time: .*\n {2}Decision: +Taint \(Unreachable\)/);
  });
});

describe('verdicts end to end: a stale lease cache', { timeout: 120_000 }, () => {
  let rig: Rig;
  let proxy: FreezeProxy;
  let controller: Proc;
  before(async () => {
    rig = await startRig(['--no-controller', '--log-level', 'warn']);
    proxy = await FreezeProxy.start(rig.server.addr);
    controller = startProcess(
      SHEPHERD_BIN,
      ['--mode', 'controller', '--api-addr', proxy.addr, ...controllerFlags('2s')],
      {
        name: 'controller',
      },
    );
    rig.procs.push(controller);
    await controller.waitForLine(/caches synced; judging node health/, 20_000).catch(() => undefined);
    await eventually(() => proxy.stats().watchesOpen >= 2, { what: 'the controller watches through the proxy' });
    await eventually(async () => (await rig.client.zones.list()).items.length === 2, { what: 'zones written' });
  });
  after(async () => {
    await rig?.cleanup();
    await proxy?.close();
  });

  test('explain says the breaker held the pass, and why', async () => {
    const { client, server } = rig;
    const history = await NodeHistory.start(client);
    proxy.freezeWatches();
    const hold = await eventually(
      async () => {
        for (const [n] of NODES) {
          const h = (await verdictsOf(client, n)).find((v) => v.action === 'Hold');
          if (h) return h;
        }
        return undefined;
      },
      { what: 'a Hold verdict', timeoutMs: 20_000 },
    );
    assert.equal(hold.reason, 'LeaseCacheStale');
    assert.equal(hold.evidence.breaker?.open, true);
    assert.notEqual(hold.evidence.lease?.liveResourceVersion, hold.evidence.lease?.cachedResourceVersion);
    const text = await explain(server, 'node', hold.node);
    assert.match(
      text.split('\n')[0] ?? '',
      new RegExp(
        `^${hold.node} is Ready; the lease circuit breaker holds the controller \\((lease node-lease/\\S+ is at resourceVersion \\d+ live but \\d+ in the cache|the leases cache is at resourceVersion \\d+, older than \\d+ seen live[^)]*)\\): no node is marked Unknown or tainted while it waits for the lease cache to catch up`,
      ),
    );
    assert.match(text, /Held: +.*resourceVersion \d+.*; waits for the lease cache to catch up/);
    assert.match(
      text,
      /Hold \(LeaseCacheStale\)\n.*looks silent for \d+s \(grace 2s\) but is not marked: the lease circuit breaker held the pass/,
    );
    assert.match(
      text,
      /next: mark it Unknown at the first pass after the lease cache catches up \(to resourceVersion \d+\)/,
    );
    proxy.unfreezeWatches();
    await history.stop();
    assert.deepEqual(history.notReady(), [], 'no node was marked while the cache was stale');
  });
});

describe('verdicts end to end: a dry-run controller beside the live one', { timeout: 120_000 }, () => {
  let rig: Rig;
  let live: Proc;
  let dry: Proc;
  before(async () => {
    rig = await startRig(['--no-controller', '--log-level', 'warn']);
    live = startProcess(
      SHEPHERD_BIN,
      ['--mode', 'controller', '--api-addr', rig.server.addr, ...controllerFlags('5s')],
      {
        name: 'live',
      },
    );
    dry = startProcess(
      SHEPHERD_BIN,
      ['--mode', 'controller', '--api-addr', rig.server.addr, '--dry-run', ...controllerFlags('2s')],
      { name: 'dry-run' },
    );
    rig.procs.push(live, dry);
    await eventually(async () => (await rig.client.zones.list()).items.length === 2, { what: 'zones written' });
    await dry.waitForLine(/caches synced; judging node health/, 20_000).catch(() => undefined);
  });
  after(async () => rig?.cleanup());

  test('it marks the node earlier in its verdicts and changes nothing in the store', async () => {
    const { client, server } = rig;
    const history = await NodeHistory.start(client);
    const victim = rig.agents.get('vd-b1') as Proc;
    victim.signal('SIGKILL');
    await victim.exited;
    const dryMark = await eventually(
      async () => (await verdictsOf(client, 'vd-b1')).find((v) => v.dryRun && v.action === 'MarkUnknown'),
      { what: 'the dry-run MarkUnknown', timeoutMs: 20_000, intervalMs: 50 },
    );
    assert.match(dryMark.metadata.name, /^vd-b1\.dry-/);
    assert.equal(dryMark.evidence.graceSeconds, 2);
    // The dry-run decided: the store still has the node Ready, untainted.
    const now = await client.nodes.get('vd-b1');
    assert.equal(readyOf(now), 'True', 'the dry-run mark is not in the store');
    assert.equal(unreachableNoExecute(now), undefined);
    const liveMark = await eventually(
      async () => (await verdictsOf(client, 'vd-b1')).find((v) => !v.dryRun && v.action === 'MarkUnknown'),
      { what: 'the live MarkUnknown', timeoutMs: 20_000 },
    );
    const earlier = Date.parse(liveMark.evidence.observedAt) - Date.parse(dryMark.evidence.observedAt);
    assert.ok(earlier >= 2000, `the dry-run marked ${earlier} ms earlier`);
    // The first change of vd-b1 that the store saw is the live controller's mark, not the dry-run's.
    const firstChange = history.notReady().find((c) => c.node.metadata.name === 'vd-b1');
    assert.ok(firstChange && firstChange.at >= Date.parse(dryMark.evidence.observedAt) + 1500);
    await history.stop();
    const dryHost = `${hostname()}_${dry.child.pid}`;
    const events = (await client.events.list()).items;
    assert.deepEqual(
      events.filter((e) => e.source.host === dryHost),
      [],
      'the dry-run controller wrote no event',
    );

    const r = await runSheepctl(['--server', server.addr, 'verdicts', '--dry-run', '--since', '10m']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /vd-b1 +MarkUnknown +\S+ +\S+ +\d+s earlier/);
    assert.match(r.stdout, /MarkUnknown: the dry-run on 1 node\(s\), the live controller on 1; 1 paired \(1 earlier/);
    const text = await explain(server, 'node', 'vd-b1');
    assert.match(text, /\[dry-run\] MarkUnknown \(HeartbeatTimeout\)/);
    assert.match(text, /Dry-run against the live controller:\n {2}MarkUnknown: dry-run \S+, live \S+: \d+s earlier/);
  });
});

describe('verdicts end to end: --controller-dry-run on a server', { timeout: 120_000 }, () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig([...controllerFlags('2s'), '--controller-dry-run']);
  });
  after(async () => rig?.cleanup());

  test('the in-process dry-run records its decisions and writes no Node, taint, Zone or Event', async () => {
    const { client } = rig;
    const history = await NodeHistory.start(client);
    const victim = rig.agents.get('vd-a2') as Proc;
    victim.signal('SIGKILL');
    await victim.exited;
    const vs = await eventually(
      async () => {
        const v = await verdictsOf(client, 'vd-a2');
        return v.some((x) => x.action === 'Taint') ? v : undefined;
      },
      { what: 'the dry-run MarkUnknown and Taint', timeoutMs: 20_000 },
    );
    assert.deepEqual(
      vs.map((v) => [v.action, v.dryRun]),
      [
        ['Suspect', true],
        ['MarkUnknown', true],
        ['Taint', true],
      ],
    );
    await history.stop();
    assert.deepEqual(history.notReady(), [], 'no node marked in the store');
    assert.equal(unreachableNoExecute(await client.nodes.get('vd-a2')), undefined, 'no taint in the store');
    assert.deepEqual((await client.zones.list()).items, [], 'no Zone object');
    assert.deepEqual(
      (await client.events.list()).items.filter((e) => e.source.component === 'node-controller'),
      [],
      'no event from the controller',
    );
  });
});
