import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { CliError } from '../../src/cli/cli-context.js';
import { runGet, type GetOptions } from '../../src/cli/get.js';
import { encodeObject, listObject } from '../../src/cli/output.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { testDeps } from './capture.js';
import { lease, node } from './fixtures.js';

const name = (i: number): string => `node-${String(i).padStart(4, '0')}`;

/** `n` ready nodes (1,200: three pages) with a lease each; node i renewed i seconds ago, its status a day ago. */
function bigClient(n = 1200): FakeApiClient {
  return new FakeApiClient({
    nodes: Array.from({ length: n }, (_, i) =>
      node(name(i), { created: 60_000, ready: 'True', heartbeat: 86_400_000 }),
    ),
    leases: Array.from({ length: n }, (_, i) => lease(name(i), i * 1000)),
  });
}

const get = (extra: Partial<GetOptions> = {}): GetOptions => ({
  resource: 'nodes',
  names: [],
  output: 'table',
  ...extra,
});

test('get nodes prints each page as it arrives, with one header and the leases read alongside', async () => {
  const c = bigClient();
  const d = testDeps(c);
  const printedBeforePage: number[] = [];
  c.beforeCall = (call) => {
    if (call.resource === 'nodes' && call.op === 'list') printedBeforePage.push(d.out.text.split('\n').length - 1);
  };
  assert.equal(await runGet(d, get()), 0);
  assert.deepEqual(printedBeforePage, [0, 501, 1001], 'the first pages were out before the next was asked for');
  const lines = d.out.text.trimEnd().split('\n');
  assert.equal(lines.length, 1201);
  assert.match(lines[0]!, /^NAME +STATUS/);
  assert.deepEqual(
    lines.slice(1).map((l) => l.split(/\s+/)[0]),
    Array.from({ length: 1200 }, (_, i) => name(i)),
  );
  // LAST HEARTBEAT is the newer of the lease and the Ready heartbeat (a day ago): node i renewed i seconds ago.
  assert.match(lines[1 + 1100]!, /\s18m(20s)? ago\s/, lines[1 + 1100]);
  assert.match(lines[1 + 5]!, /\s5s ago\s/, lines[1 + 5]);
  assert.deepEqual(
    c.callsOf('nodes', 'list').map((x) => x.limit),
    [500, 500, 500],
  );
  assert.equal(c.callsOf('leases', 'list').length, 3, 'one lease list read in pages, no GET per node');
  assert.equal(c.callsOf('leases', 'get').length, 0);
});

test('get -o json and -o yaml across pages write the document a whole list gives', async () => {
  for (const output of ['json', 'yaml'] as const) {
    const c = bigClient(520);
    const all = await c.nodes.list();
    const d = testDeps(c);
    assert.equal(await runGet(d, get({ output })), 0);
    assert.equal(d.out.text, encodeObject(output, listObject(all.items, all.metadata.resourceVersion)), output);
    if (output === 'yaml') assert.equal((parseYaml(d.out.text) as { items: unknown[] }).items.length, 520);
  }
  const empty = testDeps(new FakeApiClient());
  await runGet(empty, get({ output: 'json', labelSelector: 'no=such' }));
  assert.deepEqual(JSON.parse(empty.out.text).items, []);
});

test('get -o name across pages, and "No resources found" only when every page was empty', async () => {
  const d = testDeps(bigClient());
  await runGet(d, get({ output: 'name' }));
  assert.equal(d.out.text.split('\n').length - 1, 1200);
  assert.equal(d.out.text.split('\n')[700], `node/${name(700)}`);
  const none = testDeps(bigClient());
  await runGet(none, get({ labelSelector: 'no=such' }));
  assert.equal(none.out.text, '');
  assert.equal(none.err.text, 'No resources found\n');
});

test('a list that expires on the server while it is printed is an error that says to run the command again', async () => {
  const c = bigClient();
  c.beforeCall = (call) => {
    if (call.resource === 'nodes' && call.continue !== undefined) c.expireLists();
  };
  await assert.rejects(runGet(testDeps(c), get()), (err: unknown) => {
    assert.ok(err instanceof CliError);
    assert.match(err.message, /run the command again/);
    return true;
  });
});
