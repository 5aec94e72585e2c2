import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { HttpApiClient } from '../../src/client/http-client.js';
import type { Node } from '../../src/core/node.js';
import { eventually } from '../support/eventually.js';
import {
  type Proc,
  ROOT,
  runSheepctl,
  SHEEPCTL_BIN,
  SHEPHERD_BIN,
  startProcess,
  startServer,
  type ServerProc,
  tempDir,
} from '../support/processes.js';

// Against a real server: every command's output (golden files with AGE-like columns normalised and
// the column alignment checked), -o json/yaml round-trips, -o name, -l, -w, delete, version, the error paths
// with their exit codes, colour only on a terminal; then the README walkthrough with agents and a controller.
const VERSION = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string }).version;
const HOUR = 3_600_000;
const AGE_COLUMNS = new Set(['AGE']);

/** Splits a table by its header's column starts, checking that every cell starts exactly under its header. */
function tableCells(output: string): string[][] {
  const lines = output.split('\n').filter((l) => l !== '');
  const header = lines[0] ?? '';
  const starts = [...header.matchAll(/(?:^|\s{2,})(\S)/g)].map((m) => (m.index ?? 0) + m[0].length - 1);
  return lines.map((line, row) => {
    for (const s of starts.slice(1)) {
      if (line.length > s) assert.equal(line[s - 1], ' ', `row ${row} is not aligned at column ${s}:\n${output}`);
    }
    return starts.map((s, i) => line.slice(s, starts[i + 1] ?? line.length).trim());
  });
}

/** The table as `a | b | c` lines, AGE columns (server-set creation times) shown as <age>. */
function normalisedTable(output: string): string {
  const rows = tableCells(output);
  const ageCols = (rows[0] ?? []).flatMap((h, i) => (AGE_COLUMNS.has(h) ? [i] : []));
  return (
    rows.map((r, i) => r.map((c, j) => (i > 0 && ageCols.includes(j) ? '<age>' : c)).join(' | ')).join('\n') + '\n'
  );
}

function assertGolden(name: string, actual: string): void {
  const path = fileURLToPath(new URL(`./golden/${name}.txt`, import.meta.url));
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(path, actual);
  assert.equal(actual, readFileSync(path, 'utf8'), `output differs from test/e2e/golden/${name}.txt`);
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Runs sheepctl under a pseudo-terminal (util-linux `script`), where colour is allowed. */
async function sheepctlOnTty(args: string[], env: Record<string, string>): Promise<string> {
  const cmd = [process.execPath, SHEEPCTL_BIN, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qefc', cmd, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env } });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  assert.equal(code, 0, out);
  return out;
}

const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

async function createFixtures(client: HttpApiClient): Promise<void> {
  const info = { agentVersion: '9.9.9', hostname: 'host-1', os: 'linux', arch: 'amd64' };
  const cond = (status: 'True' | 'False' | 'Unknown', heartbeatAgo: number, reason: string) => ({
    type: 'Ready',
    status,
    reason,
    message: `ready is ${status}`,
    lastHeartbeatTime: ago(heartbeatAgo),
    lastTransitionTime: ago(heartbeatAgo),
  });
  const nodes: Array<{ name: string; labels: Record<string, string>; spec: Node['spec']; status?: Node['status'] }> = [
    {
      name: 'alpha',
      labels: { 'topology.kubernetes.io/zone': 'zone-a', tier: 'web' },
      spec: {},
      status: {
        conditions: [cond('True', 10.5 * HOUR, 'AgentReady')],
        nodeInfo: info,
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      },
    },
    {
      name: 'bravo',
      labels: { 'topology.kubernetes.io/zone': 'zone-a' },
      spec: {
        unschedulable: true,
        taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule', timeAdded: ago(9 * HOUR) }],
      },
      status: { conditions: [cond('False', 9.2 * HOUR, 'AgentNotReady')] },
    },
    {
      name: 'charlie',
      labels: { 'topology.kubernetes.io/zone': 'zone-b' },
      spec: {
        taints: [
          { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: ago(11 * HOUR) },
          { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: ago(11 * HOUR) },
          { key: 'dedicated', value: 'gpu', effect: 'NoSchedule', timeAdded: ago(30 * HOUR) },
        ],
      },
      status: {
        conditions: [cond('Unknown', 30.5 * HOUR, 'NodeStatusUnknown')],
        nodeInfo: { ...info, hostname: 'host-2' },
      },
    },
    { name: 'delta', labels: {}, spec: {} },
  ];
  for (const n of nodes) {
    const created = await client.nodes.create({
      metadata: { name: n.name, labels: n.labels },
      spec: n.spec,
      status: {},
    });
    if (n.status) await client.nodes.updateStatus({ ...created, status: n.status });
  }
  for (const [name, renewAgo] of [
    ['alpha', 20 * HOUR],
    ['charlie', 12.5 * HOUR],
  ] as const) {
    await client.leases().create({
      metadata: { name },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: ago(renewAgo) },
    });
  }
  const event = (
    name: string,
    node: string,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    lastAgo: number,
    count = 1,
  ) => ({
    metadata: { name },
    type,
    reason,
    message,
    involvedObject: { kind: 'Node', name: node },
    source: { component: 'node-controller' },
    count,
    firstTimestamp: ago(lastAgo + (count - 1) * HOUR),
    lastTimestamp: ago(lastAgo),
  });
  for (const e of [
    event(
      'alpha.1',
      'alpha',
      'Normal',
      'RegisteredNode',
      'Node alpha event: Registered Node alpha in Controller',
      20.5 * HOUR,
    ),
    event(
      'charlie.1',
      'charlie',
      'Warning',
      'NodeNotReady',
      'Node charlie heartbeat timeout: no lease renewal or status heartbeat observed for 52s (grace 50s)',
      12.5 * HOUR,
      3,
    ),
    event(
      'charlie.2',
      'charlie',
      'Warning',
      'NodeTainted',
      'Node charlie tainted node.kubernetes.io/unreachable:NoExecute (zone zone-b rate 0.1/s)',
      11.5 * HOUR,
    ),
    event('bravo.1', 'bravo', 'Warning', 'NodeNotReady', 'Node bravo status is now: NodeNotReady', 9.5 * HOUR),
  ]) {
    await client.events.create(e);
  }
  const zone = (
    name: string,
    state: 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption',
    nodes: number,
    notReady: number,
    evictionRate: number,
    annotations?: Record<string, string>,
  ) => ({
    metadata: { name, ...(annotations ? { annotations } : {}) },
    status: { state, nodes, notReady, evictionRate },
  });
  await client.zones.create(zone('zone-a', 'Normal', 2, 1, 0.1, { 'shepherd.io/controller-leader': 'host-9_4242' }));
  await client.zones.create(
    zone('zone-b', 'FullDisruption', 1, 1, 0.1, {
      'shepherd.io/lease-circuit-breaker': 'lease node-lease/charlie cached at 17, live at 19',
    }),
  );
  await client.zones.create(zone('default', 'Normal', 1, 1, 0));
}

describe('sheepctl against a real server with fixtures', { timeout: 90_000 }, () => {
  const dir = tempDir();
  let server: ServerProc;
  let client: HttpApiClient;
  const ctl = (...args: string[]): ReturnType<typeof runSheepctl> => runSheepctl(['--server', server.addr, ...args]);

  before(async () => {
    server = await startServer(['--db', `${dir.path}/db.sqlite`, '--no-controller', '--log-level', 'warn']);
    client = new HttpApiClient({ addresses: [server.addr] });
    await createFixtures(client);
  });

  after(async () => {
    await client?.close();
    await server?.stop();
    dir.cleanup();
  });

  test('tables: nodes, nodes -o wide, events, zones, leases match their golden files', async () => {
    const cases: Array<[string, string[]]> = [
      ['nodes', ['nodes']],
      ['nodes-wide', ['get', 'nodes', '-o', 'wide']],
      ['events', ['events']],
      ['zones', ['zones']],
      ['leases', ['get', 'leases']],
    ];
    const results = await Promise.all(cases.map(([, args]) => ctl(...args)));
    cases.forEach(([name], i) => {
      const r = results[i] as Awaited<ReturnType<typeof runSheepctl>>;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      const [table, footer] = r.stdout.split('\n\n');
      assertGolden(name, normalisedTable(table as string) + (footer === undefined ? '' : `\n${footer}`));
    });
  });

  test('describe node shows labels, conditions, taints, lease, zone and events', async () => {
    const r = await ctl('describe', 'node', 'charlie');
    assert.equal(r.code, 0, r.stderr);
    const normalised = r.stdout
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/\(\d+s ago\)/g, '(<age> ago)');
    assertGolden('describe-node-charlie', normalised);
  });

  test('-o json and -o yaml round-trip to what the API returns; -o name; -l selects', async () => {
    const [one, list, yamlLease, yamlZones, names, web, zoneA] = await Promise.all([
      ctl('get', 'nodes', 'alpha', '-o', 'json'),
      ctl('get', 'nodes', '-o', 'json'),
      ctl('get', 'leases', 'charlie', '-o', 'yaml'),
      ctl('get', 'zones', '-o', 'yaml'),
      ctl('get', 'nodes', '-o', 'name'),
      ctl('nodes', '-l', 'tier=web', '-o', 'name'),
      ctl('nodes', '-l', 'topology.kubernetes.io/zone=zone-a'),
    ]);
    assert.deepEqual(JSON.parse(one.stdout), await client.nodes.get('alpha'));
    const parsedList = JSON.parse(list.stdout) as { kind: string; items: unknown[] };
    assert.equal(parsedList.kind, 'List');
    assert.deepEqual(parsedList.items, (await client.nodes.list()).items);
    assert.deepEqual(parseYaml(yamlLease.stdout), await client.leases().get('charlie'));
    assert.deepEqual((parseYaml(yamlZones.stdout) as { items: unknown[] }).items, (await client.zones.list()).items);
    assert.equal(names.stdout, 'node/alpha\nnode/bravo\nnode/charlie\nnode/delta\n');
    assert.equal(web.stdout, 'node/alpha\n');
    assert.deepEqual(
      tableCells(zoneA.stdout)
        .slice(1)
        .map((r) => r[0]),
      ['alpha', 'bravo'],
    );
    for (const r of [one, list, yamlLease, yamlZones, names, web, zoneA]) assert.equal(r.code, 0, r.stderr);
  });

  test('events --for and --types filter', async () => {
    const [forCharlie, warnings] = await Promise.all([
      ctl('events', '--for', 'node/charlie'),
      ctl('events', '--types', 'Warning'),
    ]);
    assert.deepEqual(
      tableCells(forCharlie.stdout)
        .slice(1)
        .map((r) => r[2]),
      ['NodeTainted', 'NodeNotReady'],
    );
    assert.deepEqual(
      tableCells(warnings.stdout)
        .slice(1)
        .map((r) => r[3]),
      ['node/bravo', 'node/charlie', 'node/charlie'],
    );
  });

  test('-w prints a row for a change made after it started and exits 0 on SIGINT; delete removes node and lease', async (t) => {
    const w = startProcess(SHEEPCTL_BIN, ['--server', server.addr, 'get', 'nodes', '-w'], { name: 'sheepctl -w' });
    // A failed assertion must not leave the watcher running (its pipes would keep this test process alive).
    t.after(() => w.stop('SIGKILL'));
    const header = await w.waitForLine(/^NAME\s+STATUS/);
    await w.waitForLine(/^delta\s/);
    const created = await client.nodes.create({
      metadata: { name: 'echo', labels: { 'topology.kubernetes.io/zone': 'zone-c' } },
      spec: {},
      status: {},
    });
    const added = await w.waitForLine(/^echo\s/);
    assert.match(added, /^echo\s+Unknown\s+zone-c\s/);
    assert.equal(added.indexOf('Unknown'), header.indexOf('STATUS'), 'the watched row is aligned with the header');
    await client.nodes.update({ ...created, spec: { unschedulable: true } });
    await w.waitForLine(/^echo\s+Unknown,SchedulingDisabled\s+zone-c/);
    w.signal('SIGINT');
    const exit = await w.exited;
    assert.equal(exit.code, 0, w.text);

    await client.leases().create({
      metadata: { name: 'echo' },
      spec: { holderIdentity: 'echo', leaseDurationSeconds: 40, renewTime: ago(0) },
    });
    const del = await ctl('delete', 'node', 'echo');
    assert.equal(del.code, 0, del.stderr);
    assert.equal(del.stdout, 'node "echo" deleted\n');
    await assert.rejects(client.nodes.get('echo'), { reason: 'NotFound' });
    await assert.rejects(client.leases().get('echo'), { reason: 'NotFound' });
  });

  test('version prints the client and the server version', async () => {
    const r = await ctl('version');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `Client Version: ${VERSION}\nServer Version: ${VERSION} (storage sqlite)\n`);
  });

  test('error paths: not found, connection refused, usage errors; all exit 1 with a sheepctl: message', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const [notFound, describeMissing, deleteMissing, refused, refusedEnv, missingArg, unknownCmd, badOutput] =
      await Promise.all([
        ctl('get', 'node', 'x'),
        ctl('describe', 'node', 'x'),
        ctl('delete', 'node', 'x'),
        runSheepctl(['--server', dead, 'nodes']),
        runSheepctl(['nodes'], { SHEPHERD_API: dead }),
        ctl('get'),
        ctl('frobnicate'),
        ctl('nodes', '-o', 'xml'),
      ]);
    for (const r of [notFound, describeMissing, deleteMissing]) {
      assert.equal(r.code, 1);
      assert.equal(r.stderr, 'sheepctl: node "x" not found\n');
    }
    for (const r of [refused, refusedEnv]) {
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^sheepctl: /);
      assert.ok(r.stderr.includes(dead), r.stderr);
      assert.match(r.stderr, /SHEPHERD_API/);
      assert.equal(r.stdout, '');
    }
    for (const [r, what] of [
      [missingArg, /missing required argument/],
      [unknownCmd, /unknown command/],
      [badOutput, /xml/],
    ] as const) {
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^sheepctl: /);
      assert.match(r.stderr, what);
      assert.match(r.stderr, /Usage: sheepctl/);
      assert.equal(r.stdout, '');
    }
  });

  test('colour only on a terminal, never when piped or with NO_COLOR', async () => {
    const piped = await runSheepctl(['--server', server.addr, 'nodes'], { NO_COLOR: '' });
    assert.equal(piped.code, 0);
    assert.doesNotMatch(piped.stdout, /\u001b\[/);
    const tty = await sheepctlOnTty(['--server', server.addr, 'nodes'], { NO_COLOR: '' });
    assert.match(tty, /\u001b\[32mReady\u001b\[39m/, 'a terminal gets a green Ready');
    const ttyNoColour = await sheepctlOnTty(['--server', server.addr, 'nodes'], { NO_COLOR: '1' });
    assert.match(ttyNoColour, /Ready/);
    assert.doesNotMatch(ttyNoColour, /\u001b\[/);
  });
});

describe(
  'README walkthrough: a stopped agent goes Unknown and gets tainted, as seen through sheepctl',
  { timeout: 90_000 },
  () => {
    const dir = tempDir();
    let server: ServerProc;
    const agents: Proc[] = [];
    const ctl = (...args: string[]): ReturnType<typeof runSheepctl> => runSheepctl(['--server', server.addr, ...args]);
    const agent = (name: string, zone: string): Proc =>
      startProcess(
        SHEPHERD_BIN,
        ['--mode', 'agent', '--node-name', name, '--zone', zone, '--api-addr', server.addr, '--lease-duration', '2s'],
        { name },
      );

    before(async () => {
      server = await startServer([
        '--db',
        `${dir.path}/db.sqlite`,
        '--node-monitor-period',
        '200ms',
        '--node-monitor-grace-period',
        '2s',
        '--log-level',
        'warn',
      ]);
      agents.push(agent('walk-a', 'zone-a'), agent('walk-b', 'zone-b'));
    });

    after(async () => {
      for (const a of agents) await a.stop('SIGKILL');
      await server?.stop();
      dir.cleanup();
    });

    test('nodes, events and zones tell the story', async () => {
      const rowsOf = async (...args: string[]): Promise<string[][]> => {
        const r = await ctl(...args);
        assert.equal(r.code, 0, r.stderr);
        return tableCells(r.stdout.split('\n\n')[0] as string);
      };
      await eventually(
        async () => {
          const rows = await rowsOf('nodes');
          return rows.length === 3 && rows.slice(1).every((r) => r[1] === 'Ready');
        },
        { what: 'sheepctl nodes: two Ready nodes', timeoutMs: 30_000, intervalMs: 300 },
      );

      const r = await (agents[1] as Proc).stop('SIGTERM');
      assert.equal(r.code, 0);
      const row = await eventually(
        async () => {
          const rows = await rowsOf('nodes');
          const taints = (rows[0] ?? []).indexOf('TAINTS');
          const found = rows.find((x) => x[0] === 'walk-b');
          return found?.[1] === 'Unknown' && found[taints]?.includes('unreachable:NoExecute') ? found : undefined;
        },
        { what: 'sheepctl nodes: walk-b Unknown and tainted', timeoutMs: 30_000, intervalMs: 300 },
      );
      assert.equal(row[2], 'zone-b');
      assert.equal((await rowsOf('nodes')).find((x) => x[0] === 'walk-a')?.[1], 'Ready');

      const events = await eventually(
        async () => {
          const rows = await rowsOf('events', '--for', 'node/walk-b');
          return rows.some((x) => x[1] === 'Warning' && x[2] === 'NodeNotReady') ? rows : undefined;
        },
        { what: 'sheepctl events: NodeNotReady for walk-b', timeoutMs: 15_000, intervalMs: 300 },
      );
      assert.match(events.find((x) => x[2] === 'NodeNotReady')?.[5] ?? '', /heartbeat timeout/);

      const zones = await eventually(
        async () => {
          const rows = await rowsOf('zones');
          return rows.find((x) => x[0] === 'zone-b')?.[1] === 'FullDisruption' ? rows : undefined;
        },
        { what: 'sheepctl zones: zone-b FullDisruption', timeoutMs: 15_000, intervalMs: 300 },
      );
      assert.deepEqual(zones.find((x) => x[0] === 'zone-b')?.slice(2, 4), ['1', '1']);
      assert.deepEqual(zones.find((x) => x[0] === 'zone-a')?.slice(1, 4), ['Normal', '1', '0']);
    });
  },
);
