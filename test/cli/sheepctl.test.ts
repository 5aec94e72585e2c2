import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GlobalOptions } from '../../src/cli/global-options.js';
import { ServiceUnavailableError, UnauthorizedError } from '../../src/core/errors.js';
import { main } from '../../src/main/sheepctl.js';
import { flush } from '../support/fake-clock.js';
import { Capture } from './capture.js';
import type { FakeApiClient } from '../support/fake-api-client.js';
import { fixtureClient, LEASES, NODES, NOW } from './fixtures.js';

interface Run {
  code: number;
  out: string;
  err: string;
  globals: GlobalOptions[];
  client: FakeApiClient;
}

async function run(
  argv: string[],
  o: { env?: Record<string, string>; tty?: boolean; client?: FakeApiClient; signal?: AbortSignal } = {},
): Promise<Run> {
  const client = o.client ?? fixtureClient();
  const stdout = new Capture(o.tty ?? false);
  const stderr = new Capture();
  const globals: GlobalOptions[] = [];
  const code = await main(argv, {
    stdout,
    stderr,
    env: o.env ?? {},
    now: () => NOW,
    signal: o.signal ?? new AbortController().signal,
    createClient: (g) => {
      globals.push(g);
      return client;
    },
  });
  return { code, out: stdout.text, err: stderr.text, globals, client };
}

test('--help explains every command, global flag and environment variable, exit 0', async () => {
  const r = await run(['--help']);
  assert.equal(r.code, 0);
  for (const word of [
    'get',
    'nodes',
    'events',
    'zones',
    'leases',
    'describe',
    'delete',
    'version',
    '--server',
    '--token',
    '--token-file',
    '--certificate-authority',
    '--request-timeout',
    'SHEPHERD_API',
    'SHEPHERD_TOKEN',
    'NO_COLOR',
  ]) {
    assert.ok(r.out.includes(word), `help mentions ${word}`);
  }
  const get = await run(['get', '--help']);
  for (const flag of [
    '--output',
    '--selector',
    '--field-selector',
    '--watch',
    '--no-headers',
    '--namespace',
    '--server',
  ]) {
    assert.ok(get.out.includes(flag), `get --help mentions ${flag}`);
  }
  const ev = await run(['events', '--help']);
  assert.match(ev.out, /--for <type\/name>/);
  assert.match(ev.out, /--types <types>/);
});

test('usage errors print the message and the usage to stderr, exit 1, without contacting the server', async () => {
  for (const argv of [
    ['get'],
    ['get', 'nodes', '--bogus'],
    ['get', 'nodes', '-o', 'xml'],
    ['frobnicate'],
    ['nodes', '--request-timeout', 'soon'],
  ]) {
    const r = await run(argv);
    assert.equal(r.code, 1, argv.join(' '));
    assert.match(r.err, /^sheepctl: /, argv.join(' '));
    assert.match(r.err, /Usage: sheepctl/, argv.join(' '));
    assert.equal(r.out, '');
    assert.equal(r.globals.length, 0, 'no client was built');
  }
  const unknown = await run(['get', 'widgets']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /^sheepctl: unknown resource type "widgets": use one of nodes .*\nUsage: sheepctl get/);
  const noArgs = await run([]);
  assert.equal(noArgs.code, 1);
  assert.match(noArgs.err, /Usage: sheepctl/);
});

test('a connection failure names the address and suggests SHEPHERD_API, exit 1', async () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:9999'), { code: 'ECONNREFUSED' });
  const client = fixtureClient({});
  client.failAll(
    new ServiceUnavailableError('cannot reach the shepherd API at http://10.1.2.3:9999: connection refused', {
      cause: refused,
    }),
  );
  const r = await run(['nodes'], { env: { SHEPHERD_API: '10.1.2.3:9999' }, client });
  assert.equal(r.code, 1);
  assert.equal(
    r.err,
    'sheepctl: cannot connect to the shepherd API at 10.1.2.3:9999 (connect ECONNREFUSED 10.1.2.3:9999): is the server running? Set --server or SHEPHERD_API to its address.\n',
  );
  assert.equal(r.out, '');

  const down = fixtureClient({});
  down.failAll(new ServiceUnavailableError('storage is not open yet'));
  const r2 = await run(['zones', '--server', 'ctl.example:9876'], { client: down });
  assert.equal(r2.code, 1);
  assert.match(
    r2.err,
    /^sheepctl: the shepherd API at ctl\.example:9876 is unavailable \(storage is not open yet\).*SHEPHERD_API/,
  );
});

test('not found names the object: get, describe and delete', async () => {
  const get = await run(['get', 'node', 'x']);
  assert.equal(get.code, 1);
  assert.equal(get.err, 'sheepctl: node "x" not found\n');
  const describe = await run(['describe', 'node', 'x']);
  assert.equal(describe.code, 1);
  assert.equal(describe.err, 'sheepctl: node "x" not found\n');
  const del = await run(['delete', 'node', 'x']);
  assert.equal(del.code, 1);
  assert.equal(del.err, 'sheepctl: node "x" not found\n');
  const zone = await run(['get', 'zone', 'nowhere', '-o', 'json']);
  assert.equal(zone.err, 'sheepctl: zone "nowhere" not found\n');
  assert.equal(zone.out, '');
});

test('401 asks for a token', async () => {
  const client = fixtureClient({});
  client.failAll(new UnauthorizedError());
  const r = await run(['nodes'], { client });
  assert.equal(r.code, 1);
  assert.match(r.err, /^sheepctl: unauthorized \(.*\): pass a token with --token, --token-file or SHEPHERD_TOKEN\.\n$/);
});

test('delete node and version', async () => {
  const del = await run(['delete', 'node', 'node-1']);
  assert.equal(del.code, 0);
  assert.equal(del.out, 'node "node-1" deleted\n');
  assert.ok(!del.client.data.nodes.has('node-1'));
  assert.ok(del.client.closed, 'the client is closed after the command');

  const v = await run(['version']);
  assert.equal(v.code, 0);
  assert.match(v.out, /^Client Version: \d+\.\d+\.\d+\nServer Version: 0\.1\.0 \(storage sqlite, commit abc1234\)\n$/);
  const down = fixtureClient({});
  down.failAll(new ServiceUnavailableError('down'));
  const v2 = await run(['version'], { client: down });
  assert.equal(v2.code, 1);
  assert.match(v2.out, /^Client Version: /, 'the client version is printed even when the server is down');
  const clientOnly = await run(['version', '--client']);
  assert.equal(clientOnly.globals.length, 0);
});

test('shortcuts and aliases print what get prints', async () => {
  const get = await run(['get', 'nodes']);
  for (const argv of [['nodes'], ['no'], ['get', 'no'], ['get', 'node'], ['get', 'NODES']]) {
    const r = await run(argv);
    assert.equal(r.out, get.out, argv.join(' '));
  }
  assert.equal((await run(['ev'])).out, (await run(['get', 'events'])).out);
  assert.equal((await run(['zones'])).out, (await run(['get', 'zone'])).out);
});

test('events --for node/NAME --types Warning', async () => {
  const r = await run(['events', '--for', 'node/node-2', '--types', 'warning']);
  assert.equal(r.code, 0);
  assert.deepEqual(r.client.callsOf('events'), [
    {
      resource: 'events',
      op: 'list',
      name: '',
      fieldSelector: 'involvedObject.kind=Node,involvedObject.name=node-2',
      limit: 500,
    },
  ]);
  const rows = r.out.trim().split('\n');
  assert.equal(rows.length, 3);
  assert.ok(rows.slice(1).every((l) => / Warning +Node(NotReady|Tainted) +node\/node-2 /.test(l)));
  const bad = await run(['events', '--types', 'Critical']);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /^sheepctl: unknown event type "Critical"/);
});

test('global flags and environment reach the client; flags beat env', async () => {
  const r = await run(
    ['nodes', '--server', 'a:1', '--token', 't0k', '--request-timeout', '1m30s', '--certificate-authority', '/ca.pem'],
    {
      env: { SHEPHERD_API: 'b:2', SHEPHERD_TOKEN: 'envtoken' },
    },
  );
  assert.deepEqual(r.globals, [
    { server: 'a:1', token: 't0k', tokenFile: undefined, certificateAuthority: '/ca.pem', requestTimeoutMs: 90_000 },
  ]);
  const env = await run(['--server', 'c:3', 'zones'], { env: { SHEPHERD_TOKEN: 'envtoken' } });
  assert.equal(env.globals[0]?.server, 'c:3', 'global flags work before the command too');
  assert.equal(env.globals[0]?.token, 'envtoken');
  const dflt = await run(['zones']);
  assert.equal(dflt.globals[0]?.server, 'localhost:9876');
  const both = await run(['nodes', '--token', 'a', '--token-file', '/t']);
  assert.equal(both.code, 1);
  assert.match(both.err, /either --token or --token-file/);
});

test('colour only on a TTY and never with NO_COLOR', async () => {
  const tty = await run(['nodes'], { tty: true });
  assert.match(tty.out, /\u001b\[32mReady\u001b\[39m/);
  const piped = await run(['nodes'], { tty: false });
  assert.doesNotMatch(piped.out, /\u001b\[/);
  const noColour = await run(['nodes'], { tty: true, env: { NO_COLOR: '1' } });
  assert.doesNotMatch(noColour.out, /\u001b\[/);
  assert.equal(noColour.out, piped.out);
});

test('-w ends with exit code 0 when interrupted (SIGINT aborts the signal)', async () => {
  const stop = new AbortController();
  const client = fixtureClient({ nodes: NODES, leases: LEASES });
  const pending = run(['get', 'nodes', '-w', '-o', 'name'], { client, signal: stop.signal });
  await flush();
  client.remove('nodes', 'node-4');
  await flush();
  stop.abort();
  const r = await pending;
  assert.equal(r.code, 0);
  assert.equal(r.out, 'node/node-1\nnode/node-2\nnode/node-3\nnode/node-4\nnode/node-4\n');
  assert.equal(r.err, '');
});

test('an interrupted one-shot command exits 130, not 0', async () => {
  const stop = new AbortController();
  const client = fixtureClient({});
  const abortError = Object.assign(new Error('aborted'), { name: 'AbortError' });
  client.failAll(abortError);
  stop.abort();
  const r = await run(['nodes'], { client, signal: stop.signal });
  assert.equal(r.code, 130);
});

test('--token warns on stderr that the secret lands in shell history and ps; the other ways do not', async () => {
  const flag = await run(['nodes', '--token', 's3cret-t0ken']);
  assert.equal(flag.code, 0);
  assert.match(flag.err, /^sheepctl: warning: --token puts the secret in your shell history and in the process list/m);
  assert.match(flag.err, /--token-file or SHEPHERD_TOKEN/);
  assert.doesNotMatch(flag.err + flag.out, /s3cret-t0ken/);
  const env = await run(['nodes'], { env: { SHEPHERD_TOKEN: 'envtoken' } });
  assert.equal(env.err, '');
  const file = await run(['nodes', '--token-file', '/t']);
  assert.doesNotMatch(file.err, /warning/);
});
