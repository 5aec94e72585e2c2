import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Node } from '../../src/core/node.js';
import { seededRandom } from '../../src/core/random.js';
import { Registry } from '../../src/registry/registry.js';
import type { RegistryWatchEvent } from '../../src/registry/registry-watch.js';
import type { ListOptions, Store } from '../../src/store/store.js';
import { nodeBody, openTestRegistry, type TestRegistry } from '../api/harness.js';

/** The store, recording the options of every list it serves. */
function recordingLists(store: Store): { store: Store; lists: ListOptions[] } {
  const lists: ListOptions[] = [];
  const list: Store['list'] = (resource, options) => {
    lists.push(options ?? {});
    return store.list(resource, options);
  };
  const spy = new Proxy(store, {
    get: (target, key) => {
      if (key === 'list') return list;
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: spy, lists };
}

const name = (i: number): string => `n-${String(i).padStart(4, '0')}`;

describe('registry lists and watches read the store in pages', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await openTestRegistry();
    await Promise.all(Array.from({ length: 1200 }, (_, i) => t.registry.nodes.create(nodeBody(name(i)))));
  });
  afterEach(async () => {
    await t.close();
  });

  it('a watch from now sends the state at one revision in pages of 500, then what changed after it', async () => {
    const { store, lists } = recordingLists(t.store);
    const registry = new Registry({ store, clock: t.clock, random: seededRandom(1) });
    const ac = new AbortController();
    const it = registry.watch('nodes', { signal: ac.signal })[Symbol.asyncIterator]();
    const events: RegistryWatchEvent<Node>[] = [];
    const take = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) events.push((await it.next()).value as RegistryWatchEvent<Node>);
    };
    await take(10);
    // While the first page is being sent: change objects behind and ahead of it.
    const ahead = await t.registry.nodes.get(name(900));
    await t.registry.nodes.update(name(900), { ...ahead, spec: { unschedulable: true } });
    await t.registry.nodes.delete(name(1100));
    await t.registry.nodes.create(nodeBody('zz-new'));
    await take(1200 - 10 + 3);
    ac.abort();
    await it.return?.();
    const added = events.slice(0, 1200);
    assert.ok(added.every((e) => e.type === 'ADDED'));
    assert.deepEqual(
      added.map((e) => (e.type === 'BOOKMARK' ? '' : e.object.metadata.name)),
      Array.from({ length: 1200 }, (_, i) => name(i)),
      'every object once, as it was',
    );
    assert.ok(added.every((e) => e.type !== 'BOOKMARK' && e.object.spec?.unschedulable !== true));
    assert.deepEqual(
      events.slice(1200).map((e) => `${e.type} ${e.type === 'BOOKMARK' ? '' : e.object.metadata.name}`),
      [`MODIFIED ${name(900)}`, `DELETED ${name(1100)}`, 'ADDED zz-new'],
    );
    assert.deepEqual(
      lists.map((o) => o.limit),
      [500, 500, 500],
    );
  });

  it('an in-process list without a limit answers everything at one revision, read in pages', async () => {
    const { store, lists } = recordingLists(t.store);
    const registry = new Registry({ store, clock: t.clock, random: seededRandom(1) });
    const all = await registry.list('nodes');
    assert.equal(all.items.length, 1200);
    assert.equal(all.continue, undefined);
    assert.equal(all.resourceVersion, String(await t.store.currentRevision()));
    assert.ok(lists.length > 1 && lists.every((o) => o.limit !== undefined && o.limit <= 1000), JSON.stringify(lists));
  });
});
