import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Lease } from '../../src/core/lease.js';
import { leaseBody, openTestRegistry, type TestRegistry } from '../api/harness.js';

// The lease registry hands its renewals over to the store (store.ts WriteOptions): in-process watchers get the
// object the renewal answered instead of a copy parsed from its JSON. That is only sound if nothing the caller
// passed in ends up inside that object, whichever accept path took the body.
describe('lease renewals handed over to the store', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await openTestRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  const bodies: Array<[string, (rv: string) => Record<string, unknown>]> = [
    ['the plain body (fast accept path)', (rv) => withRv(leaseBody('n1', '2026-11-29T12:00:10.000000Z'), rv)],
    [
      'a body with labels (the schema)',
      (rv) => {
        const body = withRv(leaseBody('n1', '2026-11-29T12:00:10.000000Z'), rv);
        (body['metadata'] as Record<string, unknown>)['labels'] = { tier: 'gold' };
        return body;
      },
    ],
  ];
  for (const [what, makeBody] of bodies) {
    it(`${what}: watchers get the answered object, and it shares nothing with the body`, async () => {
      const created = await t.registry.leases.create('node-lease', leaseBody('n1'));
      const events = t.store.watch('leases', Number(created.metadata.resourceVersion))[Symbol.asyncIterator]();
      try {
        const next = events.next();
        const body = makeBody(created.metadata.resourceVersion);
        const renewed = await t.registry.leases.update('node-lease', 'n1', body);
        const seen = (await next).value?.object as Lease;
        assert.equal(seen, renewed);
        const before = JSON.stringify(seen);
        // The caller changing everything it passed in changes nothing the watchers hold.
        const spec = body['spec'] as Record<string, unknown>;
        const meta = body['metadata'] as Record<string, unknown>;
        spec['renewTime'] = 'changed';
        meta['name'] = 'changed';
        if (meta['labels'] !== undefined) (meta['labels'] as Record<string, string>)['tier'] = 'changed';
        assert.equal(JSON.stringify(seen), before);
      } finally {
        await events.return?.();
      }
    });
  }
});

function withRv(body: Record<string, unknown>, rv: string): Record<string, unknown> {
  return { ...body, metadata: { ...(body['metadata'] as Record<string, unknown>), resourceVersion: rv } };
}
