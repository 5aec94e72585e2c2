import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { HttpApiClient } from '../../src/client/http-client.js';
import type { Lease } from '../../src/core/lease.js';
import { eventually } from '../support/eventually.js';
import {
  type Proc,
  ROOT,
  SHEPHERD_BIN,
  startProcess,
  startServer,
  type ServerProc,
  tempDir,
} from '../support/processes.js';

// End to end with real processes: agents register with their labels and nodeInfo and keep renewing;
// they ride out a server outage longer than their 7 s backoff cap without being restarted; an agent started
// while no server runs keeps retrying (and says where it is knocking) until one appears; a second agent with
// the same node name refuses to start.
const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';
const VERSION = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string }).version;
const GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };
const OUTAGE_MS = 8_000;

interface AgentSpec {
  name: string;
  zone: string;
  extra: string[];
}
const SPECS: AgentSpec[] = [
  { name: 'node-a1', zone: 'zone-a', extra: ['--labels', 'team=blue,tier=web'] },
  { name: 'node-a2', zone: 'zone-a', extra: [] },
  { name: 'node-b1', zone: 'zone-b', extra: ['--region', 'eu'] },
];

function startAgent(addr: string, spec: AgentSpec): Proc {
  const args = [
    '--mode',
    'agent',
    '--node-name',
    spec.name,
    '--zone',
    spec.zone,
    '--api-addr',
    addr,
    '--lease-duration',
    '2s',
    ...spec.extra,
  ];
  return startProcess(SHEPHERD_BIN, args, { name: spec.name });
}

const renewMs = (l: Lease): number => Date.parse(l.spec.renewTime);

describe('agents against a real server', { timeout: 90_000 }, () => {
  const dir = tempDir();
  const db = `${dir.path}/db.sqlite`;
  let server: ServerProc | undefined;
  let client: HttpApiClient;
  const agents = new Map<string, Proc>();

  before(async () => {
    server = await startServer(['--db', db, '--no-controller', '--log-level', 'warn']);
    client = new HttpApiClient({ addresses: [server.addr], retry: { maxAttempts: 1 } });
    for (const spec of SPECS) agents.set(spec.name, startAgent(server.addr, spec));
  });

  after(async () => {
    for (const a of agents.values()) await a.stop('SIGKILL');
    await client?.close();
    await server?.stop();
    dir.cleanup();
  });

  test('three agents in two zones register with their labels and nodeInfo, and renew their leases', async () => {
    const nodes = await eventually(
      async () => {
        const list = await client.nodes.list();
        const ready = (n: (typeof list.items)[number]): boolean =>
          n.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
        return list.items.length === SPECS.length && list.items.every(ready) ? list.items : undefined;
      },
      {
        what: `three registered Ready nodes; agent output:\n${[...agents.values()].map((a) => a.text).join('\n')}`,
        timeoutMs: 20_000,
      },
    );
    for (const spec of SPECS) {
      const n = nodes.find((x) => x.metadata.name === spec.name);
      assert.ok(n, spec.name);
      assert.equal(n.metadata.labels?.[ZONE], spec.zone);
      assert.equal(n.status.nodeInfo?.agentVersion, VERSION);
      assert.equal(n.status.nodeInfo?.hostname.toLowerCase(), hostname().toLowerCase());
      assert.equal(n.status.nodeInfo?.os, process.platform);
      assert.equal(n.status.nodeInfo?.arch, GO_ARCH[process.arch] ?? process.arch);
      assert.equal(n.status.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    }
    const a1 = nodes.find((x) => x.metadata.name === 'node-a1');
    assert.equal(a1?.metadata.labels?.['team'], 'blue');
    assert.equal(a1?.metadata.labels?.['tier'], 'web');
    assert.equal(nodes.find((x) => x.metadata.name === 'node-b1')?.metadata.labels?.[REGION], 'eu');
    assert.equal(nodes.find((x) => x.metadata.name === 'node-a2')?.metadata.labels?.[REGION], undefined);

    const first = new Map((await client.leases().list()).items.map((l) => [l.metadata.name, l] as const));
    for (const spec of SPECS) {
      const l = first.get(spec.name);
      assert.equal(l?.spec.holderIdentity, spec.name);
      assert.equal(l?.spec.leaseDurationSeconds, 2);
    }
    // Renewals every quarter of 2 s: each renewTime moves on within a couple of seconds.
    await eventually(
      async () => {
        const now = (await client.leases().list()).items;
        return SPECS.every((s) => {
          const l = now.find((x) => x.metadata.name === s.name);
          return l !== undefined && renewMs(l) > renewMs(first.get(s.name) as Lease);
        });
      },
      { what: 'every renewTime advancing', timeoutMs: 5_000 },
    );
  });

  test('an agent whose node name has the maximum 253 characters registers and keeps renewing', async () => {
    const name = `${'long-'.repeat(50)}abc`;
    assert.equal(name.length, 253);
    const agent = startAgent((server as ServerProc).addr, { name, zone: 'zone-l', extra: [] });
    try {
      const first = await eventually(async () => client.leases().get(name), {
        what: `the lease of the 253-character node; agent output:\n${agent.text}`,
        timeoutMs: 20_000,
      });
      // Renewing is a GET and a PUT of /leases/<name>: both must route.
      await eventually(async () => renewMs(await client.leases().get(name)) > renewMs(first), {
        what: `a renewal of the 253-character node's lease; agent output:\n${agent.text}`,
        timeoutMs: 10_000,
      });
      assert.equal((await client.nodes.get(name)).metadata.labels?.[ZONE], 'zone-l');
    } finally {
      await agent.stop('SIGKILL');
      await client.nodes.delete(name);
    }
  });

  test('a second agent with the same node name refuses to start while the first renews', async () => {
    const dup = startAgent((server as ServerProc).addr, { name: 'node-a1', zone: 'zone-a', extra: [] });
    const result = await Promise.race([
      dup.exited,
      new Promise<never>((_, rej) =>
        setTimeout(() => rej(new Error(`duplicate agent still running:\n${dup.text}`)), 20_000),
      ),
    ]).finally(() => dup.signal('SIGKILL'));
    assert.notEqual(result.code, 0, dup.text);
    assert.match(dup.text, /held by node-a1/);
    assert.match(dup.text, /two agents with one node name/);
    const original = agents.get('node-a1') as Proc;
    assert.equal(original.child.exitCode, null, 'the first agent keeps running');
    assert.equal((await client.leases().get('node-a1')).spec.holderIdentity, 'node-a1');
  });

  test('agents ride out a server outage longer than their backoff cap, and a new agent waits for the server', async () => {
    const s = server as ServerProc;
    const pids = new Map([...agents].map(([n, p]) => [n, p.child.pid] as const));
    const linesBefore = new Map([...agents].map(([n, p]) => [n, p.output.length] as const));
    s.signal('SIGKILL');
    await s.exited;
    const killedAt = Date.now();

    // An agent started while nothing listens: it must say where it is knocking and keep trying.
    const late = startAgent(s.addr, { name: 'node-late', zone: 'zone-b', extra: [] });
    agents.set('node-late', late);
    const line = await late.waitForLine(/cannot reach|connection refused/i, 15_000);
    assert.ok(line.includes(s.addr), `the retry line names ${s.addr}: ${line}`);
    assert.match(line, /retry/i);

    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - killedAt))));
    for (const [name, p] of agents)
      assert.equal(
        p.child.exitCode,
        null,
        `${name} still running after ${OUTAGE_MS}ms without a server:\n${p.text.slice(-1500)}`,
      );

    server = await startServer(['--listen', s.addr, '--db', db, '--no-controller', '--log-level', 'warn']);
    const restartedAt = Date.now();
    // The last renewal committed before the kill, as the restarted server shows it.
    const lastRenew = new Map<string, number>();
    for (const l of (await client.leases().list()).items) lastRenew.set(l.metadata.name, renewMs(l));
    await eventually(
      async () => {
        const now = (await client.leases().list()).items;
        return SPECS.every((spec) => {
          const l = now.find((x) => x.metadata.name === spec.name);
          return l !== undefined && renewMs(l) > restartedAt - 50 && renewMs(l) > (lastRenew.get(spec.name) ?? 0);
        });
      },
      { what: 'every agent renewing again after the restart', timeoutMs: 15_000 },
    );

    for (const spec of SPECS) {
      const p = agents.get(spec.name) as Proc;
      assert.equal(p.child.pid, pids.get(spec.name), `${spec.name} is the same process`);
      assert.equal(p.child.exitCode, null, `${spec.name} is still running`);
      // The log is written asynchronously: the recovery line may trail the renewal the test saw.
      await p.waitForLine(/recovered after/, 5_000);
      const during = p.output.slice(linesBefore.get(spec.name));
      const failures = during.filter((l) => / WARN /.test(l) && /failed/.test(l));
      // The first failure is logged once per loop (lease, status, pod watch), not every retry of the outage.
      assert.ok(failures.length >= 1 && failures.length <= 3, `${spec.name} failure lines:\n${failures.join('\n')}`);
    }

    const registered = await eventually(
      async () => {
        const n = await client.nodes.get('node-late').catch(() => undefined);
        const l = await client
          .leases()
          .get('node-late')
          .catch(() => undefined);
        return n && l ? { n, l } : undefined;
      },
      { what: 'node-late registered once the server is back', timeoutMs: 15_000 },
    );
    assert.equal(registered.n.metadata.labels?.[ZONE], 'zone-b');
    assert.equal(registered.l.spec.holderIdentity, 'node-late');
    assert.equal(late.child.exitCode, null, 'the late agent never exited');
  });

  test('agents exit 0 on SIGTERM and leave their node and lease behind', async () => {
    const p = agents.get('node-a2') as Proc;
    const r = await p.stop('SIGTERM', 5_000);
    assert.equal(r.code, 0, p.text.slice(-1500));
    assert.equal((await client.nodes.get('node-a2')).metadata.name, 'node-a2');
    assert.equal((await client.leases().get('node-a2')).spec.holderIdentity, 'node-a2');
  });
});
