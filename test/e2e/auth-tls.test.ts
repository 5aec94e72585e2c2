import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { HttpApiClient } from '../../src/client/http-client.js';
import { ForbiddenError, UnauthorizedError } from '../../src/core/errors.js';
import type { Node } from '../../src/core/node.js';
import { eventually } from '../support/eventually.js';
import {
  type Proc,
  runSheepctl,
  SHEPHERD_BIN,
  startProcess,
  startServer,
  type ServerProc,
  tempDir,
} from '../support/processes.js';

// End to end: a server with a token file and TLS, a remote controller, two agents with node tokens
// and sheepctl with an admin token. The CA and keys are made fresh in before() and deleted in after().
const CONTROLLER_FLAGS = [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  '3s',
  '--node-startup-grace-period',
  '4s',
];
const tok = (role: string): string => `${role}-${randomBytes(12).toString('hex')}`;
const TOKENS = {
  admin: tok('admin'),
  controller: tok('ctrl'),
  viewer: tok('viewer'),
  node1: tok('node1'),
  node2: tok('node2'),
};

function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=shepherd-test-ca');
  ssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '1',
    '-extfile',
    'ext.cnf',
  );
  return { ca: join(dir, 'ca.pem'), cert: join(dir, 'server.pem'), key: join(dir, 'server.key') };
}

function ready(node: Node | undefined): string | undefined {
  return node?.status.conditions?.find((c) => c.type === 'Ready')?.status;
}

describe('authentication, node restriction and TLS end to end', { timeout: 120_000 }, () => {
  const dir = tempDir('shepherd-auth-');
  const procs: Proc[] = [];
  const outputs: string[] = [];
  let server: ServerProc;
  let pem: { ca: string; cert: string; key: string };
  const clients: HttpApiClient[] = [];
  const file = (name: string, text: string): string => {
    const path = join(dir.path, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  const client = (token?: string): HttpApiClient => {
    const c = new HttpApiClient({
      addresses: [server.url],
      caFile: pem.ca,
      retry: { maxAttempts: 1 },
      ...(token === undefined ? {} : { token }),
    });
    clients.push(c);
    return c;
  };
  const sheepctl = async (
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const r = await runSheepctl(['--server', server.url, '--certificate-authority', pem.ca, ...args], env);
    outputs.push(r.stdout, r.stderr);
    return r;
  };

  before(async () => {
    pem = makeCertificates(dir.path);
    const tokenFile = file(
      'tokens.csv',
      [
        '# shepherd static tokens',
        `${TOKENS.admin},admin,u-admin,"system:masters"`,
        `${TOKENS.controller},system:node-controller,u-ctrl,"system:masters"`,
        `${TOKENS.viewer},alice,u-alice,"system:viewers"`,
        `${TOKENS.node1},system:node:node-1,u-n1,"system:nodes"`,
        `${TOKENS.node2},system:node:node-2,u-n2,"system:nodes"`,
      ].join('\n'),
    );
    server = await startServer([
      '--db',
      join(dir.path, 'db.sqlite'),
      '--no-controller',
      '--token-auth-file',
      tokenFile,
      '--tls-cert-file',
      pem.cert,
      '--tls-private-key-file',
      pem.key,
      '--log-level',
      'debug',
    ]);
    procs.push(server);
    assert.match(server.url, /^https:\/\//);
    const tls = ['--api-addr', server.url, '--certificate-authority', pem.ca];
    procs.push(
      startProcess(
        SHEPHERD_BIN,
        [
          '--mode',
          'controller',
          ...tls,
          '--token-file',
          file('ctrl.token', `${TOKENS.controller}\n`),
          ...CONTROLLER_FLAGS,
          '--log-level',
          'debug',
        ],
        { name: 'controller' },
      ),
    );
    const agentArgs = (name: string): string[] => [
      '--mode',
      'agent',
      '--node-name',
      name,
      '--zone',
      'zone-a',
      ...tls,
      '--lease-duration',
      '2s',
      '--log-level',
      'debug',
    ];
    procs.push(
      startProcess(SHEPHERD_BIN, [...agentArgs('node-1'), '--token-file', file('node1.token', TOKENS.node1)], {
        name: 'node-1',
      }),
    );
    // The second agent reads its token from the environment.
    procs.push(
      startProcess(SHEPHERD_BIN, agentArgs('node-2'), { name: 'node-2', env: { SHEPHERD_TOKEN: TOKENS.node2 } }),
    );
    const admin = client(TOKENS.admin);
    await eventually(async () => (await admin.nodes.list()).items.filter((n) => ready(n) === 'True').length === 2, {
      what: 'two Ready nodes',
      timeoutMs: 30_000,
    });
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(procs.slice(1).map((p) => p.stop()));
    await server?.stop();
    dir.cleanup();
  });

  test('the remote controller writes zones with its masters token, and sheepctl works with an admin token', async () => {
    const admin = client(TOKENS.admin);
    await eventually(async () => (await admin.zones.list()).items.some((z) => z.metadata.name === 'zone-a'), {
      what: 'zone-a written by the controller',
    });
    const nodes = await sheepctl(['--token-file', file('admin.token', TOKENS.admin), 'get', 'nodes']);
    assert.equal(nodes.code, 0, nodes.stderr);
    assert.match(nodes.stdout, /node-1\s+Ready/);
    assert.match(nodes.stdout, /node-2\s+Ready/);
    const zones = await sheepctl(['zones'], { SHEPHERD_TOKEN: TOKENS.admin });
    assert.equal(zones.code, 0, zones.stderr);
    assert.match(zones.stdout, /zone-a/);
  });

  test("node-1's token cannot renew node-2's lease, change its own taints, or delete anything", async () => {
    const node1 = client(TOKENS.node1);
    const lease2 = await node1.leases().get('node-2');
    await assert.rejects(
      node1.leases().update({ ...lease2, spec: { ...lease2.spec, renewTime: new Date().toISOString() } }),
      (e) => e instanceof ForbiddenError && /nodes may only write their own Lease/.test(e.message),
    );
    const own = await node1.nodes.get('node-1');
    await assert.rejects(
      node1.nodes.update({ ...own, spec: { ...own.spec, taints: [{ key: 'evil', effect: 'NoExecute' }] } }),
      (e) => e instanceof ForbiddenError && /node "node-1" may not modify taints/.test(e.message),
    );
    for (const del of [
      () => node1.nodes.delete('node-2'),
      () => node1.nodes.delete('node-1'),
      () => node1.leases().delete('node-1'),
      () => node1.zones.delete('zone-a'),
    ]) {
      await assert.rejects(del(), (e) => e instanceof ForbiddenError && /may not delete/.test(e.message));
    }
    assert.equal((await client(TOKENS.admin).nodes.list()).items.length, 2, 'nothing was deleted');
  });

  test('a viewer can read but not write; no token and an unknown token get 401', async () => {
    const viewer = client(TOKENS.viewer);
    assert.equal((await viewer.nodes.list()).items.length, 2);
    const n = await viewer.nodes.get('node-2');
    await assert.rejects(
      viewer.nodes.update({ ...n, metadata: { ...n.metadata, labels: { x: 'y' } } }),
      ForbiddenError,
    );
    const del = await sheepctl(['delete', 'node', 'node-2'], { SHEPHERD_TOKEN: TOKENS.viewer });
    assert.notEqual(del.code, 0);
    assert.match(del.stderr, /may not delete nodes "node-2"/);
    await assert.rejects(client().nodes.list(), UnauthorizedError);
    await assert.rejects(client('not-a-token').nodes.list(), UnauthorizedError);
    assert.equal((await client().version()).storage, 'sqlite', '/version stays open');
    const anon = await sheepctl(['get', 'nodes']);
    assert.notEqual(anon.code, 0);
    assert.match(anon.stderr, /Unauthorized|token/i);
  });

  test('a token in the query string is refused, and no token appears in any output of the run', async () => {
    const dispatcher = new Agent({ connect: { ca: readFileSync(pem.ca, 'utf8') } });
    try {
      const res = await request(`${server.url}/api/v1/nodes?token=${TOKENS.admin}`, { dispatcher });
      assert.equal(res.statusCode, 400);
      assert.match(await res.body.text(), /Authorization: Bearer/);
    } finally {
      await dispatcher.close();
    }
    for (const p of procs.slice(1)) await p.stop();
    await server.stop();
    const everything = [...procs.map((p) => p.text), ...outputs].join('\n');
    assert.ok(everything.length > 10_000, `the run logged something (${everything.length} bytes)`);
    assert.match(everything, /token=\[redacted\]/, 'the refused request was logged, redacted');
    for (const [role, token] of Object.entries(TOKENS))
      assert.ok(!everything.includes(token), `the ${role} token appears in the output`);
  });
});

describe('safe defaults at start', { timeout: 30_000 }, () => {
  test('refuses an unauthenticated non-loopback listener, and warns about tokens over plain HTTP', async () => {
    const dir = tempDir('shepherd-auth-defaults-');
    try {
      const refused = startProcess(SHEPHERD_BIN, [
        '--mode',
        'server',
        '--listen',
        '0.0.0.0:0',
        '--db',
        join(dir.path, 'a.sqlite'),
      ]);
      assert.equal((await refused.exited).code, 1);
      assert.match(
        refused.text,
        /refusing to serve an unauthenticated API on 0\.0\.0\.0:0: give --token-auth-file, or --allow-unauthenticated/,
      );
      // A name that merely starts like a loopback address is not one.
      const lookalike = startProcess(SHEPHERD_BIN, [
        '--mode',
        'server',
        '--listen',
        '127.evil.example:0',
        '--db',
        join(dir.path, 'a.sqlite'),
      ]);
      assert.equal((await lookalike.exited).code, 1);
      assert.match(lookalike.text, /refusing to serve an unauthenticated API on 127\.evil\.example:0/);
      const tokens = join(dir.path, 'tokens.csv');
      writeFileSync(tokens, 'plain-http-token-1,admin,1,system:masters\n', { mode: 0o644 });
      chmodSync(tokens, 0o644);
      const plain = await startServer([
        '--listen',
        '0.0.0.0:0',
        '--db',
        join(dir.path, 'b.sqlite'),
        '--token-auth-file',
        tokens,
      ]);
      try {
        await plain.waitForLine(/serving bearer tokens over plain HTTP on 0\.0\.0\.0:0/);
        await plain.waitForLine(
          /tokens\.csv is readable by its group or by others, and it holds every token: chmod 600/,
        );
      } finally {
        await plain.stop();
      }
      const allowed = await startServer([
        '--listen',
        '0.0.0.0:0',
        '--db',
        join(dir.path, 'c.sqlite'),
        '--allow-unauthenticated',
      ]);
      await allowed.stop();
    } finally {
      dir.cleanup();
    }
  });
});
