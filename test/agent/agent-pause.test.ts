import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LeaseRenewer, newNodeLease } from '../../src/agent/lease-renewer.js';
import type { Lease } from '../../src/core/lease.js';
import { recordingLogger } from '../../src/core/logger.js';
import { fakes, fixedRandom } from './agent-fixtures.js';

// An agent that was itself paused (SIGSTOP, a frozen VM) sees no failure when it wakes: its next renewal just
// succeeds. The controller may have marked the node Unknown meanwhile, and only a status post heals that, so a
// renewal gap longer than the lease duration forces one, like a recovery from an outage does.
it('a renewal gap longer than the lease duration forces a status post; a normal gap does not', async () => {
  const { clock, client } = fakes();
  const lease = client.put<Lease>('leases', {
    ...newNodeLease('node-1', 40, clock.now()),
    apiVersion: 'coordination/v1',
    kind: 'Lease',
  } as Lease);
  let forced = 0;
  const renewer = new LeaseRenewer({
    client,
    clock,
    random: fixedRandom(0),
    log: recordingLogger(),
    config: { nodeName: 'node-1', leaseDurationSeconds: 40 },
    onRecovered: () => forced++,
  });
  renewer.adopt(lease);
  const signal = new AbortController().signal;
  await renewer.sync(signal);
  await clock.advance(10_000);
  await renewer.sync(signal);
  assert.equal(forced, 0, 'a regular 10s gap is not a pause');
  await clock.advance(41_000);
  await renewer.sync(signal);
  assert.equal(forced, 1, 'a 41s gap (> 40s lease) forces a status post');
  await clock.advance(10_000);
  await renewer.sync(signal);
  assert.equal(forced, 1);
});
