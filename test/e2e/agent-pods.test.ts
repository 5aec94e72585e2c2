import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Writable } from '../../src/client/api-client.js';
import { HttpApiClient } from '../../src/client/http-client.js';
import { NotFoundError } from '../../src/core/errors.js';
import type { Pod } from '../../src/core/pod.js';
import { eventually } from '../support/eventually.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// End to end with real processes: a server with node tokens, an agent started with --allow-process-pods that runs a
// pod's command (node -e …) as a child process, and one without the flag. Pods are created already bound
// (spec.nodeName), as the scheduler would bind them. The pod script writes a marker file on SIGTERM and exits on
// its own after two minutes, so no process outlives the test even if an assertion fails midway.
const tok = (role: string): string => `${role}-${randomBytes(12).toString('hex')}`;
const TOKENS = { admin: tok('admin'), node1: tok('node1'), node2: tok('node2') };

const SCRIPT = [
  "const fs = require('fs');",
  "console.log('hello from ' + process.env.POD_NAME + ' on ' + process.env.NODE_NAME + ', token: ' + (process.env.SHEPHERD_TOKEN || 'none'));",
  "process.on('SIGTERM', () => { fs.writeFileSync(process.env.MARKER, 'SIGTERM ' + process.pid); process.exit(0); });",
  "fs.writeFileSync(process.env.MARKER + '.pid', String(process.pid));",
  'setTimeout(() => process.exit(0), 120000);',
].join(' ');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('agents run their pods', { timeout: 120_000 }, () => {
  const dir = tempDir('shepherd-pods-e2e-');
  const logDir = join(dir.path, 'pod-logs');
  const procs: Proc[] = [];
  let server: ServerProc;
  let admin: HttpApiClient;
  let agent1: Proc;

  const file = (name: string, text: string): string => {
    const path = join(dir.path, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  const marker = (pod: string): string => join(dir.path, `${pod}.marker`);
  const processPod = (name: string, node: string): Writable<Pod> => ({
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 10,
      containers: [
        { name: 'main', command: [process.execPath, '-e', SCRIPT], env: [{ name: 'MARKER', value: marker(name) }] },
      ],
    },
    status: { phase: 'Pending' },
  });
  const get = (name: string): Promise<Pod> => admin.pods('default').get(name);
  const startAgent = (name: string, extra: string[], env: Record<string, string> = {}): Proc =>
    startProcess(
      SHEPHERD_BIN,
      ['--mode', 'agent', '--node-name', name, '--api-addr', server.addr, '--lease-duration', '2s', ...extra],
      { name, env },
    );

  before(async () => {
    const tokens = file(
      'tokens.csv',
      [
        `${TOKENS.admin},admin,u-admin,"system:masters"`,
        `${TOKENS.node1},system:node:node-1,u-n1,"system:nodes"`,
        `${TOKENS.node2},system:node:node-2,u-n2,"system:nodes"`,
      ].join('\n'),
    );
    server = await startServer(['--db', join(dir.path, 'db.sqlite'), '--no-controller', '--token-auth-file', tokens]);
    procs.push(server);
    admin = new HttpApiClient({ addresses: [server.addr], token: TOKENS.admin, retry: { maxAttempts: 1 } });
    // node-1 reads its token from the environment: its pods must not see it.
    agent1 = startAgent(
      'node-1',
      ['--allow-process-pods', '--pod-log-dir', logDir, '--node-status-update-frequency', '1s'],
      { SHEPHERD_TOKEN: TOKENS.node1 },
    );
    procs.push(agent1);
    procs.push(startAgent('node-2', ['--token-file', file('node2.token', TOKENS.node2)]));
    await eventually(async () => (await admin.nodes.list()).items.length === 2, {
      what: 'both agents registered',
      timeoutMs: 30_000,
    });
  });

  after(async () => {
    // SIGTERM, not SIGKILL: the agent stops its process pods on the way out.
    for (const p of procs.slice(1)) await p.stop('SIGTERM');
    await admin?.close();
    await server?.stop();
    dir.cleanup();
  });

  test('a process pod runs: Running and Ready with startTime and hostIP, its output in its log file', async () => {
    const created = await admin.pods('default').create(processPod('sleeper', 'node-1'));
    const pod = await eventually(
      async () => {
        const p = await get('sleeper');
        return p.status.phase === 'Running' && p.status.containerStatuses?.[0]?.state.running !== undefined && p;
      },
      { what: 'pod sleeper Running', timeoutMs: 20_000 },
    );
    assert.ok(pod.status.startTime);
    assert.ok(pod.status.hostIP);
    assert.equal(pod.status.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(pod.status.containerStatuses?.[0]?.restartCount, 0);
    const log = join(logDir, `default_sleeper_${created.metadata.uid}.log`);
    // The agent's own "starting" line quotes the command (which contains "hello from "): wait for the output itself.
    const output = /hello from sleeper on node-1, token: (\S+)\n/;
    const text = await eventually(
      () => existsSync(log) && output.test(readFileSync(log, 'utf8')) && readFileSync(log, 'utf8'),
      {
        what: `the pod's output in ${log}`,
      },
    );
    assert.equal(output.exec(text)?.[1], 'none', "the agent's token is not in the pod's environment");
    const node = await eventually(
      async () => {
        const n = await admin.nodes.get('node-1');
        return n.status.podCount === 1 && n;
      },
      { what: 'node-1 podCount 1' },
    );
    assert.equal(node.status.capacity?.pods, '110');
    assert.match(node.status.allocatable?.memory ?? '', /^\d+Mi$/);
  });

  test('deleting it sends SIGTERM to the process, then the agent removes the object', async () => {
    const pid = Number(readFileSync(`${marker('sleeper')}.pid`, 'utf8'));
    assert.ok(alive(pid));
    await admin.pods('default').delete('sleeper');
    const seen = await eventually(() => existsSync(marker('sleeper')) && readFileSync(marker('sleeper'), 'utf8'), {
      what: 'the pod process to get SIGTERM',
    });
    assert.equal(seen, `SIGTERM ${pid}`);
    await eventually(
      async () => {
        try {
          await get('sleeper');
          return false;
        } catch (err) {
          return err instanceof NotFoundError;
        }
      },
      { what: 'pod sleeper removed' },
    );
    await eventually(() => !alive(pid), { what: `process ${pid} gone` });
  });

  test('an agent without --allow-process-pods marks a pod with a command Failed, saying how to enable it', async () => {
    await admin.pods('default').create(processPod('refused', 'node-2'));
    await admin.pods('default').create({
      metadata: { name: 'placeholder', namespace: 'default' },
      spec: { nodeName: 'node-2', containers: [{ name: 'main' }] },
      status: { phase: 'Pending' },
    });
    const pod = await eventually(
      async () => {
        const p = await get('refused');
        return p.status.phase === 'Failed' && p;
      },
      { what: 'pod refused Failed' },
    );
    assert.equal(pod.status.reason, 'ProcessPodsDisabled');
    assert.match(pod.status.message ?? '', /--allow-process-pods/);
    assert.equal(existsSync(`${marker('refused')}.pid`), false, 'nothing ran');
    await eventually(async () => (await get('placeholder')).status.phase === 'Running', {
      what: 'the placeholder pod Running on node-2',
    });
  });

  test('a stopped agent stops its process pods; started again it runs them again, counting a restart', async () => {
    await admin.pods('default').create(processPod('survivor', 'node-1'));
    const pidFile = `${marker('survivor')}.pid`;
    const first = await eventually(() => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')), {
      what: 'pod survivor started',
      timeoutMs: 20_000,
    });
    const stopped = await agent1.stop('SIGTERM');
    assert.equal(stopped.code, 0);
    assert.equal(readFileSync(marker('survivor'), 'utf8'), `SIGTERM ${first}`);
    assert.equal(alive(first), false);
    agent1 = startAgent('node-1', ['--allow-process-pods', '--pod-log-dir', logDir], { SHEPHERD_TOKEN: TOKENS.node1 });
    procs.push(agent1);
    const pod = await eventually(
      async () => {
        const p = await get('survivor');
        const c = p.status.containerStatuses?.[0];
        return c?.restartCount === 1 && c.state.running !== undefined && p;
      },
      { what: 'pod survivor running again with restartCount 1', timeoutMs: 30_000 },
    );
    assert.equal(pod.status.containerStatuses?.[0]?.lastState?.terminated?.reason, 'ContainerStatusUnknown');
    const second = await eventually(() => Number(readFileSync(pidFile, 'utf8')) !== first, {
      what: 'a new process for pod survivor',
    });
    assert.ok(second);
  });
});
