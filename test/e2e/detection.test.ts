import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpApiClient } from '../../src/client/http-client.js';
import type { Node } from '../../src/core/node.js';
import { eventually } from '../support/eventually.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// End to end with real processes and short flags (docs/node-lifecycle.md#suspect, #flap-damping, #agent-heal):
// a stopped agent is Suspect (still Ready) before it is Unknown; an agent whose Node is set Unknown behind its back
// is Ready again within one status period; an agent stopped and continued in a loop gets the flapping taint and
// loses it after a window of Ready.
const GRACE = '3s';
const STATUS_PERIOD_MS = 4_000;
const FLAP_WINDOW_MS = 6_000;
const CONTROLLER_FLAGS = [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  GRACE,
  '--node-startup-grace-period',
  '4s',
  '--node-flap-threshold',
  '1',
  '--node-flap-window',
  `${FLAP_WINDOW_MS / 1000}s`,
  '--log-level',
  'warn',
];

const condition = (n: Node | undefined, type: string): string | undefined =>
  n?.status.conditions?.find((c) => c.type === type)?.status;
const flapping = (n: Node): boolean => n.spec.taints?.some((t) => t.key === 'shepherd.io/flapping') === true;

function agent(server: ServerProc, name: string): Proc {
  return startProcess(
    SHEPHERD_BIN,
    [
      '--mode',
      'agent',
      '--node-name',
      name,
      '--api-addr',
      server.addr,
      '--lease-duration',
      '2s',
      '--node-status-update-frequency',
      `${STATUS_PERIOD_MS / 1000}s`,
      '--log-level',
      'warn',
    ],
    { name },
  );
}

describe('adaptive detection end to end', { timeout: 120_000 }, () => {
  const dir = tempDir();
  let server: ServerProc;
  let client: HttpApiClient;
  const agents = new Map<string, Proc>();

  before(async () => {
    server = await startServer(['--db', `${dir.path}/db.sqlite`, ...CONTROLLER_FLAGS]);
    client = new HttpApiClient({ addresses: [server.addr] });
    for (const name of ['node-stop', 'node-heal', 'node-flap']) agents.set(name, agent(server, name));
    await eventually(
      async () => (await client.nodes.list()).items.filter((n) => condition(n, 'Ready') === 'True').length === 3,
      { what: 'three Ready nodes', timeoutMs: 30_000 },
    );
  });

  after(async () => {
    for (const a of agents.values()) a.signal('SIGCONT');
    await Promise.all([...agents.values()].map((a) => a.stop()));
    await client?.close();
    await server?.stop();
    dir.cleanup();
  });

  test('a SIGSTOPped agent becomes Suspect (still Ready), then Unknown; continued, Suspect=False', async () => {
    const a = agents.get('node-stop') as Proc;
    a.signal('SIGSTOP');
    const seen: string[] = [];
    await eventually(
      async () => {
        const n = await client.nodes.get('node-stop');
        const state = `${condition(n, 'Ready')}/${condition(n, 'Suspect') ?? '-'}`;
        if (seen[seen.length - 1] !== state) seen.push(state);
        return condition(n, 'Ready') === 'Unknown';
      },
      { what: 'node-stop Unknown', timeoutMs: 20_000, intervalMs: 50 },
    );
    assert.ok(seen.includes('True/True'), `Ready and Suspect before Unknown: ${seen.join(' → ')}`);
    assert.equal(seen[seen.length - 1], 'Unknown/True');
    const verdicts = (await client.verdicts.list({ fieldSelector: 'node=node-stop' })).items.map((v) => v.action);
    assert.ok(verdicts.includes('Suspect') && verdicts.includes('MarkUnknown'), verdicts.join());
    a.signal('SIGCONT');
    await eventually(
      async () => {
        const n = await client.nodes.get('node-stop');
        return condition(n, 'Ready') === 'True' && condition(n, 'Suspect') === 'False';
      },
      { what: 'node-stop Ready and not Suspect', timeoutMs: 20_000 },
    );
  });

  test('a Node set Unknown behind its agent’s back is Ready again within one status period', async () => {
    const n = await client.nodes.get('node-heal');
    const unknown = (n.status.conditions ?? []).map((c) =>
      c.type === 'Ready' ? { ...c, status: 'Unknown' as const, reason: 'ByHand', message: 'set by the test' } : c,
    );
    await client.nodes.updateStatus({ ...n, status: { ...n.status, conditions: unknown } });
    const setAt = Date.now();
    await eventually(async () => condition(await client.nodes.get('node-heal'), 'Ready') === 'True', {
      what: 'node-heal Ready again',
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    const healedMs = Date.now() - setAt;
    assert.ok(healedMs <= STATUS_PERIOD_MS, `Ready again after ${healedMs} ms (status period ${STATUS_PERIOD_MS} ms)`);
  });

  test('an agent stopped and continued in a loop gets the flapping taint and loses it after the window', async () => {
    const a = agents.get('node-flap') as Proc;
    const get = (): Promise<Node> => client.nodes.get('node-flap');
    let readyAt = 0;
    for (let cycle = 0; cycle < 2; cycle++) {
      a.signal('SIGSTOP');
      await eventually(async () => condition(await get(), 'Ready') === 'Unknown', {
        what: `node-flap Unknown (cycle ${cycle + 1})`,
        timeoutMs: 20_000,
      });
      a.signal('SIGCONT');
      await eventually(async () => condition(await get(), 'Ready') === 'True', {
        what: `node-flap Ready (cycle ${cycle + 1})`,
        timeoutMs: 20_000,
        intervalMs: 50,
      });
      readyAt = Date.now();
    }
    const tainted = await eventually(async () => flapping(await get()), {
      what: 'shepherd.io/flapping:NoSchedule on node-flap',
      timeoutMs: 10_000,
    });
    assert.ok(tainted);
    const actions = (await client.verdicts.list({ fieldSelector: 'node=node-flap' })).items.map((v) => v.action);
    assert.ok(actions.includes('Flapping'), actions.join());
    const events = (await client.events.list()).items.filter(
      (e) => e.reason === 'NodeFlapping' && e.involvedObject.name === 'node-flap',
    );
    assert.equal(events.length, 1);
    await eventually(async () => !flapping(await get()), {
      what: 'the flapping taint lifted',
      timeoutMs: FLAP_WINDOW_MS + 15_000,
    });
    assert.ok(Date.now() - readyAt >= FLAP_WINDOW_MS - 1_000, 'not before a window of Ready');
    assert.equal(condition(await get(), 'Ready'), 'True');
    assert.ok(!(await get()).spec.taints?.some((t) => t.effect === 'NoExecute'), 'never evicted for flapping');
  });
});
