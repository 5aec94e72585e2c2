import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runGet, type GetOptions } from '../../src/cli/get.js';
import { GoneError, ServiceUnavailableError } from '../../src/core/errors.js';
import type { Node } from '../../src/core/node.js';
import { flush } from '../support/fake-clock.js';
import { testDeps } from './capture.js';
import { fixtureClient, LEASES, NODES, node } from './fixtures.js';

const watchNodes = (extra: Partial<GetOptions> = {}): GetOptions => ({
  resource: 'nodes',
  names: [],
  output: 'table',
  watch: true,
  ...extra,
});

/** node-4 turned Ready; the fake gives it the next resourceVersion when put. */
const readyNode4 = (): Node => node('node-4', { created: 45_000, ready: 'True', heartbeat: 1000 });

function setup() {
  const client = fixtureClient({ nodes: NODES, leases: LEASES });
  const stop = new AbortController();
  const d = testDeps(client, { signal: stop.signal });
  return { client, stop, d };
}

test('-w prints the list, then one aligned row per change without reprinting the header; abort ends it with 0', async () => {
  const { client, stop, d } = setup();
  const done = runGet(d, watchNodes());
  await flush();
  const header = d.out.text.split('\n')[0] ?? '';
  assert.match(header, /^NAME +STATUS +ZONE +PODS +CPU +MEMORY +TAINTS +LAST HEARTBEAT +AGE$/);
  assert.equal(d.out.text.split('\n').length, 6, 'header, four nodes, trailing newline');
  const feed = client.watches('nodes')[0];
  assert.ok(feed, 'a watch was opened');
  assert.equal(feed.request.resourceVersion, '100', 'watches from the list resourceVersion');

  client.put('nodes', readyNode4());
  assert.equal(feed.pushed.length, 1, 'the change went down the open watch');
  await flush();
  const lines = d.out.text.split('\n');
  const row = lines[5] ?? '';
  assert.match(row, /^node-4 +Ready +default +<none> +<none> +<none> +<none> +1s ago +45s$/);
  assert.equal(lines.filter((l) => l.startsWith('NAME')).length, 1, 'the header is printed once');
  for (const col of ['STATUS', 'ZONE', 'TAINTS', 'LAST HEARTBEAT', 'AGE']) {
    const at = header.indexOf(col);
    assert.notEqual(row[at - 1], undefined);
    assert.equal(row[at - 1], ' ', `${col} column starts at the same offset`);
    assert.notEqual(row[at], ' ', `${col} column starts at the same offset`);
  }

  stop.abort();
  assert.equal(await done, 0);
});

test('-w resumes from the last resourceVersion when the stream ends (server restart) and relists on Gone', async () => {
  const { client, stop, d } = setup();
  const done = runGet(d, watchNodes({ output: 'name', outputWatchEvents: false }));
  await flush();
  client.put('nodes', readyNode4()); // resourceVersion 101
  client.watches('nodes')[0]?.end();
  await flush();
  assert.equal(client.watches('nodes')[1]?.request.resourceVersion, '101', 'resumed after the last change seen');

  // The stream fails with Gone, and node-3 is deleted before the relist: report what changed meanwhile (node-4
  // is unchanged since the relist agrees with what was seen).
  client.watches('nodes')[1]?.fail(new GoneError('too old resource version: 101 (150)'));
  const gone = client.remove<Node>('nodes', 'node-3'); // resourceVersion 102, after the stream ended
  await flush();
  assert.equal(
    d.out.text.split('\n').slice(4).join('\n'),
    ['node/node-4', `node/${gone.metadata.name}`, ''].join('\n'),
  );
  assert.equal(client.watches('nodes').length, 3);
  assert.equal(client.watches('nodes')[2]?.request.resourceVersion, '102', 'continues from the relist');
  stop.abort();
  assert.equal(await done, 0);
});

test('-w survives an unreachable server: one notice on stderr, retries after a backoff, same resourceVersion', async () => {
  const { client, stop, d } = setup();
  const done = runGet(d, watchNodes({ output: 'name' }));
  await flush();
  client.watches('nodes')[0]?.fail(new ServiceUnavailableError('connection refused'));
  await flush();
  assert.match(d.err.text, /^sheepctl: watch interrupted \(.*connection refused.*\); reconnecting\n$/);
  assert.equal(client.watches('nodes').length, 1, 'waits before reconnecting');
  await d.clock.advance(2_000);
  assert.equal(client.watches('nodes').length, 2);
  assert.equal(client.watches('nodes')[1]?.request.resourceVersion, '100');
  client.put('nodes', readyNode4());
  await flush();
  assert.match(d.out.text, /node\/node-4\n$/);
  stop.abort();
  assert.equal(await done, 0);
});

test('-w --output-watch-events adds an EVENT column; -w -o json prints one object per change', async () => {
  const a = setup();
  const done = runGet(a.d, watchNodes({ outputWatchEvents: true, names: ['node-1'] }));
  await flush();
  a.client.remove('nodes', 'node-1');
  a.client.put('nodes', readyNode4()); // not the named node: skipped
  assert.equal(a.client.watches('nodes')[0]?.pushed.length, 2, 'both changes went down the watch');
  await flush();
  a.stop.abort();
  await done;
  const lines = a.d.out.text.trim().split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0] ?? '', /^EVENT +NAME +STATUS/);
  assert.match(lines[1] ?? '', /^ADDED +node-1 +Ready/);
  assert.match(lines[2] ?? '', /^DELETED +node-1 +Ready +zone-a +3 +3500m +15.5Gi +<none> +40s ago/);
  const header = lines[0] ?? '';
  for (const col of ['NAME', 'STATUS', 'ZONE']) {
    const at = header.indexOf(col);
    assert.ok(
      /^ +$/.test((lines[2] ?? '').slice(at - 3, at)) && (lines[2] ?? '')[at] !== ' ',
      `${col} stays aligned after DELETED`,
    );
  }

  const b = setup();
  const doneB = runGet(b.d, watchNodes({ output: 'json', labelSelector: 'tier=web' }));
  await flush();
  assert.equal(b.client.watches('nodes')[0]?.request.labelSelector, 'tier=web');
  const edit = structuredClone(NODES[0]) as Node;
  edit.metadata.labels = { ...edit.metadata.labels, extra: 'x' };
  const changed = b.client.put('nodes', edit);
  await flush();
  b.stop.abort();
  await doneB;
  const docs = b.d.out.text.split(/\n(?=\{)/).map((s) => JSON.parse(s));
  assert.deepEqual(docs, [NODES[0], changed]);
});
