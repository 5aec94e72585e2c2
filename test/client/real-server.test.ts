import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpApiClient } from '../../src/client/http-client.js';
import { Informer } from '../../src/client/informer.js';
import { systemClock } from '../../src/core/clock.js';
import { AlreadyExistsError, ConflictError, InvalidError, NotFoundError } from '../../src/core/errors.js';
import type { Lease } from '../../src/core/lease.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Node } from '../../src/core/node.js';
import { seededRandom } from '../../src/core/random.js';
import { leaseBody, nodeBody, startTestServer, type TestServer } from '../api/harness.js';
import { eventually } from '../support/eventually.js';

/**
 * The client against the real fastify server (api/harness.ts) on a socket: what the fake server scripts, the
 * real one must actually do. Real clock: the server's bookmarks are timer-driven (every 50 ms here).
 */
describe('HttpApiClient against the real API server', () => {
  let t: TestServer;
  let client: HttpApiClient;

  before(async () => {
    t = await startTestServer({ clock: systemClock, bookmarkIntervalMs: 50 });
    await t.server.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.server.app.server.address() as AddressInfo;
    client = new HttpApiClient({
      addresses: [`127.0.0.1:${port}`],
      random: seededRandom(5),
      retry: { maxAttempts: 1 },
    });
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('creates, reads, updates and deletes, reviving the server errors', async () => {
    const created = await client.nodes.create(nodeBody('client-n1') as never);
    assert.match(created.metadata.resourceVersion, /^\d+$/);
    await assert.rejects(client.nodes.create(nodeBody('client-n1') as never), AlreadyExistsError);
    const updated = await client.nodes.update({ ...created, metadata: { ...created.metadata, labels: { a: 'b' } } });
    assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
    await assert.rejects(client.nodes.update(created), ConflictError, 'a stale resourceVersion is a Conflict');
    await assert.rejects(client.nodes.create({ ...nodeBody('client-n2'), bogus: 1 } as never), InvalidError);
    const list = await client.nodes.list({ labelSelector: 'a=b' });
    assert.deepEqual(
      list.items.map((n: Node) => n.metadata.name),
      ['client-n1'],
    );
    await client.nodes.delete('client-n1');
    await assert.rejects(client.nodes.get('client-n1'), NotFoundError);
    assert.equal((await client.version()).version, '1.2.3-test');
  });

  it('feeds an informer whose lastSyncResourceVersion follows writes and bookmarks', async () => {
    const ac = new AbortController();
    const informer = new Informer<Lease>({
      client: client.leases(),
      clock: systemClock,
      log: silentLogger,
      keyOf: (l) => `${l.metadata.namespace}/${l.metadata.name}`,
      backoff: { initialMs: 10, maxMs: 50 },
    });
    const running = informer.run(ac.signal);
    try {
      await informer.waitForSync(ac.signal);
      const lease = await client.leases().create(leaseBody('client-l1') as never);
      await eventually(() => informer.get('node-lease/client-l1'), { what: 'lease client-l1 in the informer' });
      assert.equal(informer.lastSyncResourceVersion(), lease.metadata.resourceVersion);
      // A write to another kind moves the global revision; only a bookmark can tell the lease cache about it.
      const other = await client.nodes.create(nodeBody('client-n3') as never);
      await eventually(() => Number(informer.lastSyncResourceVersion()) >= Number(other.metadata.resourceVersion), {
        what: `a bookmark moving the lease cache to resourceVersion ${other.metadata.resourceVersion}`,
        last: () => informer.lastSyncResourceVersion(),
      });
    } finally {
      ac.abort();
      await running;
    }
  });

  it('lists in pages: list() follows continue, a limit gives one page, listPages streams them', async () => {
    const names = Array.from({ length: 1234 }, (_, i) => `paged-${String(i).padStart(4, '0')}`);
    await Promise.all(names.map((n) => t.server.registry.nodes.create(nodeBody(n))));
    const all = await client.nodes.list({ labelSelector: 'topology.kubernetes.io/zone=z1' });
    assert.deepEqual(
      all.items.map((n) => n.metadata.name).filter((n) => n.startsWith('paged-')),
      names,
    );
    assert.equal(all.metadata.continue, undefined);
    const one = await client.nodes.list({ limit: 10 });
    assert.equal(one.items.length, 10);
    assert.equal(typeof one.metadata.continue, 'string');
    const next = await client.nodes.list({ limit: 10, continue: one.metadata.continue! });
    assert.equal(next.metadata.resourceVersion, one.metadata.resourceVersion);
    assert.ok(next.items[0]!.metadata.name > one.items[9]!.metadata.name);
    const sizes: number[] = [];
    const rvs = new Set<string>();
    for await (const page of client.nodes.listPages({ limit: 400 })) {
      sizes.push(page.items.length);
      rvs.add(page.metadata.resourceVersion);
    }
    assert.equal(
      sizes.reduce((a, b) => a + b),
      all.items.length,
    );
    assert.ok(sizes.length >= 4 && sizes.slice(0, -1).every((s) => s === 400), String(sizes));
    assert.equal(rvs.size, 1);
  });
});
