import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Writable } from '../../src/client/api-client.js';
import { HttpApiClient } from '../../src/client/http-client.js';
import { watchWithResume } from '../../src/client/watch-resume.js';
import type { Deployment } from '../../src/core/deployment.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Node } from '../../src/core/node.js';
import type { Pod } from '../../src/core/pod.js';
import { ANNOTATION_MASTER_DISRUPTION } from '../../src/core/zone-annotations.js';
import { CutProxy } from '../support/cut-proxy.js';
import { eventually } from '../support/eventually.js';
import { readyOf, unreachableNoExecute } from '../support/node-history.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// The workload story end to end with real processes (docs/workloads.md#eviction-pacing-in-a-rack-failure): three
// zones of two agents, a Deployment of 30 placeholder pods spread over them. Killing a zone's agents taints its
// nodes at the zone's rate after the grace period, and each node's pods are deleted tolerationSeconds after its
// taint and replaced in the healthy zones. Cutting every zone's link to the server (a proxy per agent) is master
// disruption: no pod is evicted, and when the cut heals every pod is where it was. A node whose link comes back
// before tolerationSeconds keeps its pods.
// Lease 3 s (renewed every 750 ms) against a 4 s grace: a loaded 2-core machine running seven processes must not
// make a live node miss its grace.
const GRACE_MS = 4_000;
const MONITOR_MS = 200;
const RATE = 0.5; // taints per second per zone: the second node of a dead zone follows the first by 2 s
const TOLERATION_S = 5;
const ZONES = ['zone-a', 'zone-b', 'zone-c'] as const;
const NODES = ZONES.flatMap((z) => [1, 2].map((i) => ({ name: `${z.replace('zone-', 'node-')}${i}`, zone: z })));
const FLAGS = [
  ...['--node-monitor-period', `${MONITOR_MS}ms`, '--node-monitor-grace-period', `${GRACE_MS}ms`],
  ...['--node-eviction-rate', String(RATE), '--default-unreachable-toleration-seconds', String(TOLERATION_S)],
  ...['--default-not-ready-toleration-seconds', String(TOLERATION_S), '--log-level', 'warn'],
];

// An agent cut off re-posts its status at its first status tick after its renewals succeed again (the controller
// marked the node Unknown meanwhile): a short update period makes a node Ready again soon after the heal.
const AGENT_FLAGS = ['--lease-duration', '3s', '--node-status-update-frequency', '500ms', '--log-level', 'warn'];

const web: Writable<Deployment> = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas: 30,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
  },
  status: {},
};

/** When the server marked a pod for deletion: its deletionTimestamp less the grace it was given. */
function deletedAtMs(pod: Pod): number | undefined {
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  return deletionTimestamp === undefined
    ? undefined
    : Date.parse(deletionTimestamp) - (deletionGracePeriodSeconds ?? 0) * 1000;
}

/** Every pod as last seen through one watch, kept after deletion, so a pod removed between two polls still counts. */
class PodRecord {
  readonly seen = new Map<string, Pod>();
  readonly #ac = new AbortController();
  readonly #done: Promise<void>;

  constructor(client: HttpApiClient, resourceVersion: string) {
    this.#done = (async () => {
      const events = watchWithResume(client.pods('default'), {
        resourceVersion,
        signal: this.#ac.signal,
        backoff: { initialMs: 50, maxMs: 300 },
        log: silentLogger,
      });
      for await (const ev of events) if (ev.type !== 'BOOKMARK') this.seen.set(ev.object.metadata.name, ev.object);
    })().catch(() => undefined);
  }

  /** Pods the server marked for deletion. */
  deleted(): Pod[] {
    return [...this.seen.values()].filter((p) => p.metadata.deletionTimestamp !== undefined);
  }

  async stop(): Promise<void> {
    this.#ac.abort();
    await this.#done;
  }
}

describe('the workload story: a dead zone, a cut control plane, a node back in time', { timeout: 120_000 }, () => {
  const dir = tempDir();
  let server: ServerProc;
  let client: HttpApiClient;
  let record: PodRecord;
  const agents = new Map<string, Proc>();
  /** Each agent talks to the server through its own link, which the test can cut. */
  const proxies = new Map<string, CutProxy>();

  const startAgent = (name: string, zone: string): void => {
    const addr = (proxies.get(name) as CutProxy).addr;
    const args = ['--mode', 'agent', '--node-name', name, '--zone', zone, '--api-addr', addr];
    agents.set(name, startProcess(SHEPHERD_BIN, [...args, ...AGENT_FLAGS], { name }));
  };
  const nodes = async (): Promise<Node[]> => (await client.nodes.list()).items;
  const pods = async (): Promise<Pod[]> => (await client.pods('default').list()).items;
  const live = async (): Promise<Pod[]> => (await pods()).filter((p) => p.metadata.deletionTimestamp === undefined);
  const zoneOf = (node: string | undefined): string | undefined => NODES.find((n) => n.name === node)?.zone;
  const perZone = (list: Pod[]): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const p of list) out[zoneOf(p.spec.nodeName) ?? '?'] = (out[zoneOf(p.spec.nodeName) ?? '?'] ?? 0) + 1;
    return out;
  };
  const placement = (list: Pod[]): Record<string, string | undefined> =>
    Object.fromEntries(list.map((p) => [p.metadata.name, p.spec.nodeName]).sort());
  /** Waits until every named node is Ready and has no taint (a new node's not-ready NoSchedule gone too). */
  const waitReady = async (names: string[], what: string, timeoutMs = 30_000): Promise<void> => {
    let seen: string[] = [];
    await eventually(
      async () => {
        const all = await nodes();
        seen = all.map((n) => `${n.metadata.name} ${readyOf(n)} ${(n.spec.taints ?? []).map((t) => t.key).join(',')}`);
        const ok = new Set(
          all.filter((n) => readyOf(n) === 'True' && (n.spec.taints ?? []).length === 0).map((n) => n.metadata.name),
        );
        return names.every((n) => ok.has(n));
      },
      { what, timeoutMs, last: () => ({ seen, logs: names.map((n) => agents.get(n)?.output.slice(-5)) }) },
    );
  };
  const evictions = async (): Promise<number> =>
    (await client.events.list()).items
      .filter((e) => e.reason === 'TaintManagerEviction')
      .reduce((n, e) => n + e.count, 0);

  before(async () => {
    server = await startServer(['--db', `${dir.path}/db.sqlite`, ...FLAGS]);
    for (const n of NODES) proxies.set(n.name, await CutProxy.start(server.addr));
    client = new HttpApiClient({ addresses: [server.addr] });
    for (const n of NODES) startAgent(n.name, n.zone);
    await waitReady(
      NODES.map((n) => n.name),
      'six Ready nodes',
      30_000,
    );
    record = new PodRecord(client, (await client.pods('default').list()).metadata.resourceVersion);
  });

  after(async () => {
    await record?.stop();
    await client?.close();
    await Promise.all([...agents.values()].map((p) => p.stop()));
    await server?.stop();
    await Promise.all([...proxies.values()].map((p) => p.close()));
    dir.cleanup();
  });

  test('a Deployment of 30 is spread 10 to a zone and 5 to a node, and runs', async () => {
    await client.deployments('default').create(web);
    await eventually(async () => (await pods()).filter((p) => p.status.phase === 'Running').length === 30, {
      what: '30 pods Running',
      timeoutMs: 30_000,
    });
    const all = await pods();
    assert.deepEqual(perZone(all), { 'zone-a': 10, 'zone-b': 10, 'zone-c': 10 });
    const perNode = new Map<string, number>();
    for (const p of all) perNode.set(p.spec.nodeName ?? '?', (perNode.get(p.spec.nodeName ?? '?') ?? 0) + 1);
    assert.deepEqual([...perNode.values()], [5, 5, 5, 5, 5, 5], JSON.stringify(Object.fromEntries(perNode)));
  });

  test("killing zone-a's agents taints its nodes at the zone rate; its pods leave tolerationSeconds later", async () => {
    const before = await pods();
    const doomed = new Set(before.filter((p) => zoneOf(p.spec.nodeName) === 'zone-a').map((p) => p.metadata.name));
    const killedAt = Date.now();
    await Promise.all(['node-a1', 'node-a2'].map((n) => agents.get(n)?.stop('SIGKILL')));

    // Replaced: 30 live pods, all in the healthy zones, spread evenly over them.
    let seen: Record<string, number> = {};
    await eventually(
      async () => {
        const now = await live();
        seen = perZone(now);
        return now.length === 30 && now.every((p) => zoneOf(p.spec.nodeName) !== 'zone-a');
      },
      {
        what: '30 live pods, none in zone-a',
        timeoutMs: 40_000,
        last: () => ({ seen, evicted: record.deleted().length }),
      },
    );
    const now = await live();
    assert.deepEqual(perZone(now), { 'zone-b': 15, 'zone-c': 15 });

    // Each zone-a node was tainted once the grace period ran out, the second one token (1/rate) after the first.
    const taints = (await nodes())
      .filter((n) => zoneOf(n.metadata.name) === 'zone-a')
      .map((n) => ({ node: n.metadata.name, at: Date.parse(unreachableNoExecute(n)?.timeAdded ?? 'x') }))
      .sort((x, y) => x.at - y.at);
    assert.equal(taints.length, 2);
    const [first, second] = taints as [{ node: string; at: number }, { node: string; at: number }];
    assert.ok(first.at - killedAt >= GRACE_MS - 1000, `first taint ${first.at - killedAt} ms after the kill`);
    const gap = second.at - first.at;
    assert.ok(gap >= 1000 / RATE - MONITOR_MS, `second taint ${gap} ms after the first, rate ${RATE}/s`);

    // Every evicted pod is one of zone-a's, marked tolerationSeconds (to within a second) after its node's taint.
    const evicted = record.deleted();
    assert.deepEqual(new Set(evicted.map((p) => p.metadata.name)), doomed);
    for (const p of evicted) {
      const taint = taints.find((t) => t.node === p.spec.nodeName);
      const after = (deletedAtMs(p) ?? 0) - (taint?.at ?? 0);
      assert.ok(
        after >= TOLERATION_S * 1000 && after < TOLERATION_S * 1000 + 1000,
        `${p.metadata.name} on ${p.spec.nodeName} deleted ${after} ms after its node's taint`,
      );
    }
    assert.equal(await evictions(), 10);
  });

  test("zone-a's agents come back and complete the deletion of their evicted pods", async () => {
    startAgent('node-a1', 'zone-a');
    startAgent('node-a2', 'zone-a');
    await waitReady(
      NODES.map((n) => n.name),
      'six Ready, untainted nodes',
      30_000,
    );
    await eventually(async () => (await pods()).length === 30, {
      what: 'the 10 evicted pods removed',
      timeoutMs: 20_000,
    });
  });

  test('cutting every zone is master disruption: no pod is evicted, and after the heal nothing moved', async () => {
    const before = placement(await live());
    const evictionsBefore = await evictions();
    const cutAt = Date.now();
    for (const p of proxies.values()) p.cut();
    await eventually(
      async () => {
        const zones = (await client.zones.list()).items;
        return (
          zones.length === 3 && zones.every((z) => z.metadata.annotations?.[ANNOTATION_MASTER_DISRUPTION] === 'true')
        );
      },
      { what: 'every Zone annotated with master disruption', timeoutMs: 20_000 },
    );
    // Held longer than any toleration could have run: the grace period, a taint that came before every zone was
    // down, its tolerationSeconds, and a second to spare.
    await eventually(() => Date.now() - cutAt >= GRACE_MS + TOLERATION_S * 1000 + 2000, {
      what: 'the cut outlasting tolerationSeconds',
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    assert.deepEqual(
      (await nodes()).filter((n) => unreachableNoExecute(n) !== undefined).map((n) => n.metadata.name),
      [],
      'no NoExecute taint during master disruption',
    );
    for (const p of proxies.values()) p.heal();
    await waitReady(
      NODES.map((n) => n.name),
      'six Ready nodes after the heal',
      30_000,
    );
    await eventually(
      async () =>
        (await client.zones.list()).items.every(
          (z) => z.metadata.annotations?.[ANNOTATION_MASTER_DISRUPTION] !== 'true',
        ),
      { what: 'master disruption over', timeoutMs: 10_000 },
    );
    const all = await pods();
    assert.deepEqual(placement(all), before, 'the same 30 pods on the same nodes');
    assert.ok(all.every((p) => p.metadata.deletionTimestamp === undefined && p.status.phase === 'Running'));
    assert.equal(await evictions(), evictionsBefore, 'no TaintManagerEviction during the cut');
  });

  test('a node back before tolerationSeconds keeps its pods', async () => {
    const before = placement(await live());
    const mine = Object.entries(before)
      .filter(([, node]) => node === 'node-b1')
      .map(([name]) => name);
    assert.ok(mine.length > 0, 'node-b1 runs pods');
    const evictionsBefore = await evictions();
    const link = proxies.get('node-b1') as CutProxy;
    link.cut();
    const taint = await eventually(async () => unreachableNoExecute(await client.nodes.get('node-b1')), {
      what: 'node-b1 tainted unreachable:NoExecute',
      timeoutMs: 20_000,
    });
    link.heal();
    await waitReady(['node-b1'], 'node-b1 Ready and untainted', 10_000);
    const backAfter = Date.now() - Date.parse(taint.timeAdded ?? 'x');
    assert.ok(backAfter < TOLERATION_S * 1000, `back ${backAfter} ms after the taint: inside the toleration`);
    // Past the moment the pods would have been deleted, they are still there and still on node-b1.
    await eventually(() => Date.now() - Date.parse(taint.timeAdded ?? 'x') >= TOLERATION_S * 1000 + 1000, {
      what: 'tolerationSeconds past the taint',
      timeoutMs: 10_000,
      intervalMs: 200,
    });
    assert.deepEqual(placement(await live()), before);
    assert.equal(await evictions(), evictionsBefore);
    const cancelled = (await client.events.list()).items.filter(
      (e) => e.reason === 'TaintManagerEvictionCancelled' && mine.includes(e.involvedObject.name),
    );
    assert.ok(cancelled.length > 0, 'the pending evictions of node-b1 were cancelled');
  });
});
