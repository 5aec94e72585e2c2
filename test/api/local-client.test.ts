import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { LocalApiClient } from '../../src/client/local-client.js';
import type { Writable } from '../../src/client/api-client.js';
import {
  AlreadyExistsError,
  BadRequestError,
  ConflictError,
  GoneError,
  InvalidError,
  NotFoundError,
} from '../../src/core/errors.js';
import type { Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
import { eventBody, openTestRegistry, snapshot, type TestRegistry } from './harness.js';

function node(name: string, labels: Record<string, string> = {}): Writable<Node> {
  return { metadata: { name, labels }, spec: {}, status: {} };
}

function lease(name: string): Writable<Lease> {
  return {
    metadata: { name },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: '2026-11-29T12:00:00.000000Z' },
  };
}

describe('LocalApiClient', () => {
  let t: TestRegistry;
  let client: LocalApiClient;
  beforeEach(async () => {
    t = await openTestRegistry();
    client = new LocalApiClient({ registry: t.registry, version: '9.9.9' });
  });
  afterEach(async () => {
    await client.close();
    await t.close();
  });

  it('creates, gets and lists with the same defaults and selectors as HTTP', async () => {
    const created = await client.nodes.create(node('l-1', { role: 'db' }));
    await client.nodes.create(node('l-2', { role: 'web' }));
    assert.equal(created.apiVersion, 'v1');
    assert.equal(created.kind, 'Node');
    assert.match(created.metadata.uid, /-/);
    assert.deepEqual(await client.nodes.get('l-1'), created);
    const list = await client.nodes.list({ labelSelector: 'role=db' });
    assert.equal(list.kind, 'NodeList');
    assert.equal(list.metadata.resourceVersion, String(await t.store.currentRevision()));
    assert.deepEqual(
      list.items.map((n) => n.metadata.name),
      ['l-1'],
    );
    assert.deepEqual(await client.version(), { version: '9.9.9', storage: 'sqlite' });
  });

  it('throws the error classes of core/errors.ts, and a rejected write changes nothing', async () => {
    const created = await client.nodes.create(node('e-1'));
    await client.nodes.update({ ...created, spec: { unschedulable: true } });
    const before = await snapshot(t);
    await assert.rejects(client.nodes.create(node('e-1')), AlreadyExistsError);
    await assert.rejects(client.nodes.update({ ...created, spec: {} }), ConflictError);
    await assert.rejects(client.nodes.update({ metadata: { name: 'e-1' }, spec: {}, status: {} }), InvalidError);
    await assert.rejects(client.nodes.get('missing'), NotFoundError);
    await assert.rejects(
      client.nodes.create({ metadata: { name: 'e-2' }, spec: { bogus: 1 } } as unknown as Writable<Node>),
      InvalidError,
    );
    await assert.rejects(
      client.nodes.watch({ labelSelector: 'a b c' })[Symbol.asyncIterator]().next(),
      BadRequestError,
    );
    assert.equal(await snapshot(t), before);
  });

  it('updateStatus replaces status only; update ignores status', async () => {
    const created = await client.nodes.create(node('s-1'));
    const status = { conditions: [{ type: 'Ready', status: 'True' as const }] };
    const withStatus = await client.nodes.updateStatus({ ...created, spec: { unschedulable: true }, status });
    assert.deepEqual(withStatus.status, status);
    assert.deepEqual(withStatus.spec, {});
    const updated = await client.nodes.update({ ...withStatus, spec: { unschedulable: true }, status: {} });
    assert.deepEqual(updated.status, status);
    assert.deepEqual(updated.spec, { unschedulable: true });
  });

  it('leases are namespaced: node-lease by default, shepherd-system when asked', async () => {
    const nodeLease = await client.leases().create(lease('x'));
    assert.equal(nodeLease.metadata.namespace, 'node-lease');
    const sys = await client.leases('shepherd-system').create(lease('x'));
    assert.equal(sys.metadata.namespace, 'shepherd-system');
    assert.deepEqual(
      (await client.leases('shepherd-system').list()).items.map((l) => l.metadata.namespace),
      ['shepherd-system'],
    );
    await client.nodes.create(node('x'));
    await client.nodes.delete('x');
    await assert.rejects(client.leases().get('x'), NotFoundError);
    assert.equal((await client.leases('shepherd-system').get('x')).metadata.uid, sys.metadata.uid);
  });

  it('folds events like the HTTP path', async () => {
    const a = await client.events.create(eventBody() as unknown as Parameters<typeof client.events.create>[0]);
    const b = await client.events.create(eventBody() as unknown as Parameters<typeof client.events.create>[0]);
    assert.equal(b.metadata.name, a.metadata.name);
    assert.equal(b.count, 2);
  });

  it('watches: ADDED for current objects, live changes, bookmarks, Gone as GoneError, quiet end on abort', async () => {
    await client.nodes.create(node('w-1'));
    const stop = new AbortController();
    const it = client.nodes.watch({ allowWatchBookmarks: true, signal: stop.signal })[Symbol.asyncIterator]();
    const first = await it.next();
    assert.equal(first.value?.type, 'ADDED');
    const created = await client.nodes.create(node('w-2'));
    const second = await it.next();
    assert.equal(second.value?.type, 'ADDED');
    assert.equal(second.value?.object.metadata.resourceVersion, created.metadata.resourceVersion);
    const pending = it.next();
    await t.clock.advance(1000);
    const bm = await pending;
    assert.deepEqual(bm.value, {
      type: 'BOOKMARK',
      object: { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: created.metadata.resourceVersion } },
    });
    const ending = it.next();
    stop.abort();
    assert.equal((await ending).done, true);

    t.store.compact(await t.store.currentRevision());
    const stale = client.nodes.watch({ resourceVersion: '1' })[Symbol.asyncIterator]();
    await assert.rejects(stale.next(), GoneError);
  });

  it('lists in pages through the registry: list() follows continue, a limit gives one page, a page expires as over HTTP', async () => {
    await Promise.all(
      Array.from({ length: 1100 }, (_, i) => client.nodes.create(node(`p-${String(i).padStart(4, '0')}`))),
    );
    const all = await client.nodes.list();
    assert.equal(all.items.length, 1100);
    assert.equal(all.metadata.continue, undefined);
    const first = await client.nodes.list({ limit: 600 });
    assert.equal(first.items.length, 600);
    const n = await client.nodes.get('p-0700');
    await client.nodes.update({ ...n, metadata: { ...n.metadata, labels: { changed: 'yes' } } });
    const rest = await client.nodes.list({ limit: 600, continue: first.metadata.continue! });
    assert.equal(rest.items.length, 500);
    assert.equal(rest.metadata.resourceVersion, first.metadata.resourceVersion);
    assert.equal(rest.items[100]?.metadata.name, 'p-0700');
    assert.deepEqual(rest.items[100]?.metadata.labels, {}, 'p-0700 as it was at the first page');
    const pages: number[] = [];
    for await (const page of client.nodes.listPages({ limit: 500 })) pages.push(page.items.length);
    assert.deepEqual(pages, [500, 500, 100]);
    const again = await client.nodes.list({ limit: 600 });
    const p800 = await client.nodes.get('p-0800');
    await client.nodes.update({ ...p800, metadata: { ...p800.metadata, labels: { x: 'y' } } });
    await t.clock.advance(60_000);
    await assert.rejects(client.nodes.list({ limit: 600, continue: again.metadata.continue! }), GoneError);
  });
});
