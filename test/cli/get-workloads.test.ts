import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runGet, type GetOptions } from '../../src/cli/get.js';
import { resolveResource } from '../../src/cli/resource-names.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { deployment, pod, verdict } from '../store/fixtures.js';
import { testDeps } from './capture.js';

const get = (resource: GetOptions['resource'], extra: Partial<GetOptions> = {}): GetOptions => ({
  resource,
  names: [],
  output: 'table',
  ...extra,
});

/** Pods and deployments have kubectl's columns (test/cli/workload-tables.test.ts); verdicts NAME and AGE. */
function client(): FakeApiClient {
  const c = new FakeApiClient();
  c.put('pods', pod('web-1'));
  c.put('pods', pod('web-2', 'team-a'));
  c.put('deployments', deployment('web'));
  c.put('verdicts', verdict('node-1.0001'));
  return c;
}

test('get pods, deployments and verdicts: their columns; pods and deployments of the default namespace', async () => {
  for (const [resource, headers, names] of [
    ['pods', ['NAME', 'READY', 'STATUS', 'RESTARTS', 'NODE', 'AGE'], ['web-1']],
    ['deployments', ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'], ['web']],
    ['verdicts', ['NAME', 'AGE'], ['node-1.0001']],
  ] as const) {
    const d = testDeps(client());
    assert.equal(await runGet(d, get(resource)), 0, resource);
    const lines = d.out.text.trim().split('\n');
    assert.deepEqual(lines[0]?.split(/\s{2,}/), headers, resource);
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(/\s+/)[0]),
      names,
      resource,
    );
    assert.equal(d.err.text, '');
  }
});

test('get pods -n NS NAME reads one pod of that namespace; -o json prints it', async () => {
  const d = testDeps(client());
  assert.equal(await runGet(d, get('pods', { namespace: 'team-a', names: ['web-2'], output: 'json' })), 0);
  assert.equal(JSON.parse(d.out.text).metadata.namespace, 'team-a');
});

test('the resource names accept kubectl aliases', () => {
  assert.equal(resolveResource('po'), 'pods');
  assert.equal(resolveResource('deploy'), 'deployments');
  assert.equal(resolveResource('Verdict'), 'verdicts');
});
