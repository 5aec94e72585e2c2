import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ListOptions, Store } from '../../src/store/store.js';
import { collectOrphanPods } from '../../src/registry/orphan-gc.js';
import { GC_PAGE, pickInPages } from '../../src/registry/periodic-gc.js';
import { collectExpiredVerdicts } from '../../src/registry/verdict-gc.js';
import { openTestRegistry, type TestRegistry } from '../api/harness.js';
import { deployment, lease, pod, verdict } from '../store/fixtures.js';

/** Records the options of every list the store serves. */
function spyLists(store: Store): ListOptions[] {
  const calls: ListOptions[] = [];
  const list = store.list.bind(store);
  store.list = ((resource, options = {}) => {
    calls.push(options);
    return list(resource, options);
  }) as Store['list'];
  return calls;
}

async function createAll<T>(n: number, make: (i: number) => Promise<T>): Promise<void> {
  for (let i = 0; i < n; i += 200)
    await Promise.all(Array.from({ length: Math.min(200, n - i) }, (_, j) => make(i + j)));
}

describe('collectors read in pages', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await openTestRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  it('pickInPages lists GC_PAGE at a time and keeps only the name, namespace and resourceVersion of picked items', async () => {
    const n = 2 * GC_PAGE + 234;
    await createAll(n, (i) => t.store.create('leases', lease(`l${String(i).padStart(5, '0')}`)));
    const calls = spyLists(t.store);
    const { refs, revision } = await pickInPages(t.store, 'leases', (l) => Number(l.metadata.name.slice(1)) % 3 === 0);
    assert.equal(calls.length, 3, 'three pages');
    assert.ok(
      calls.every((c) => c.limit === GC_PAGE),
      'no list without a limit',
    );
    assert.equal(refs.length, Math.ceil(n / 3));
    assert.equal(revision, await t.store.currentRevision());
    for (const ref of refs) {
      assert.deepEqual(Object.keys(ref), ['metadata']);
      assert.deepEqual(Object.keys(ref.metadata).sort(), ['name', 'namespace', 'resourceVersion']);
      assert.equal(ref.metadata.namespace, 'node-lease');
    }
  });

  it('expires more than a page of Verdicts in one pass', async () => {
    const n = GC_PAGE + 100;
    await createAll(n, (i) => t.store.create('verdicts', verdict(`node-1.v${i}`)));
    await t.clock.advance(1000);
    const calls = spyLists(t.store);
    assert.equal(await collectExpiredVerdicts(t.registry, t.clock, 1), n);
    assert.ok(calls.length >= 2 && calls.every((c) => c.limit === GC_PAGE));
    assert.equal((await t.store.list('verdicts')).items.length, 0);
  });

  it('collects the orphans among more than a page of pods, and none while their Deployment lives', async () => {
    const n = GC_PAGE + 50;
    await createAll(n, (i) => t.store.create('pods', pod(`p${i}`)));
    const web = await t.store.create('deployments', deployment('web'));
    assert.equal(await collectOrphanPods(t.registry), 0, 'their owner exists');
    await t.store.delete('deployments', 'default/web', { expectedResourceVersion: web.metadata.resourceVersion });
    const calls = spyLists(t.store);
    assert.equal(await collectOrphanPods(t.registry), n);
    assert.ok(calls.every((c) => c.limit === GC_PAGE));
    const live = (await t.store.list('pods')).items.filter((p) => p.metadata.deletionTimestamp === undefined);
    assert.deepEqual(live, [], 'each is gone or terminating');
    assert.equal(await collectOrphanPods(t.registry), 0, 'nothing left to collect');
  });

  it("a Deployment's delete cascades to more than a page of its namespace's pods, and only those", async () => {
    const n = GC_PAGE + 50;
    await createAll(n, (i) => t.store.create('pods', pod(`p${i}`)));
    await t.store.create('pods', pod('elsewhere', 'other'));
    await t.store.create('deployments', deployment('web'));
    const calls = spyLists(t.store);
    assert.equal(await t.registry.deployments.deleteOwnedPods('default', 'uid-web'), n);
    assert.ok(calls.length >= 2 && calls.every((c) => c.limit === GC_PAGE && c.prefix === 'default/'));
    const live = (await t.store.list('pods')).items.filter((p) => p.metadata.deletionTimestamp === undefined);
    assert.deepEqual(
      live.map((p) => `${p.metadata.namespace}/${p.metadata.name}`),
      ['other/elsewhere'],
      'every pod of the namespace is gone or terminating; the other namespace keeps its own',
    );
  });
});
