import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runDescribeNode } from '../../src/cli/describe.js';
import { assertGolden, testDeps } from './capture.js';
import { fixtureClient as client, NODES } from './fixtures.js';

test("describe node: labels, conditions, taints with ages, lease, zone state and rate, the node's events", async () => {
  const c = client();
  const d = testDeps(c);
  assert.equal(await runDescribeNode(d, 'node-2'), 0);
  assertGolden('describe-node-2', d.out.text);
  assert.deepEqual(
    c.callsOf('events'),
    [
      {
        resource: 'events',
        op: 'list',
        name: '',
        fieldSelector: 'involvedObject.kind=Node,involvedObject.name=node-2',
        limit: 500,
      },
    ],
    "asks only for this node's events",
  );
});

test('describe node without lease, zone object, conditions or events says so', async () => {
  const d = testDeps(client({ nodes: NODES }));
  assert.equal(await runDescribeNode(d, 'node-4'), 0);
  assertGolden('describe-node-4', d.out.text);
});

test('describe node that does not exist: node "x" not found', async () => {
  const d = testDeps(client());
  await assert.rejects(runDescribeNode(d, 'x'), { name: 'CliError', message: 'node "x" not found' });
});
