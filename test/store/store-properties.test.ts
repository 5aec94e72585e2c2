import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../src/core/errors.js';
import { keyOf, RESOURCES, type AnyObject, type Resource } from '../../src/core/kinds.js';
import type { Store } from '../../src/store/store.js';
import { collectUntil, objectOf, rv, touched } from './fixtures.js';
import { openTestStore } from './sqlite-harness.js';

type Action = 'create' | 'update' | 'staleUpdate' | 'delete';
interface Op {
  resource: Resource;
  name: string;
  action: Action;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  resource: fc.constantFrom(...RESOURCES),
  name: fc.constantFrom('a', 'b', 'c'),
  action: fc.constantFrom<Action>('create', 'update', 'staleUpdate', 'delete'),
});

/** Groups of writes issued concurrently; a group touches each (kind, name) at most once, so order inside it is free. */
const groupsArb = fc.array(
  fc.uniqueArray(opArb, { selector: (o) => `${o.resource}/${o.name}`, minLength: 1, maxLength: 6 }),
  {
    minLength: 1,
    maxLength: 12,
  },
);

type Model = Map<string, AnyObject>;
const slot = (resource: Resource, name: string): string => `${resource}/${name}`;

/** Issues one write and checks its outcome against the model; returns the stored object on success. */
async function runOp(store: Store, model: Model, op: Op, n: number): Promise<AnyObject | undefined> {
  const current = model.get(slot(op.resource, op.name));
  const fresh = objectOf(op.resource, op.name);
  const key = keyOf(op.resource, fresh);
  switch (op.action) {
    case 'create':
      if (current) return assert.rejects(store.create(op.resource, fresh), AlreadyExistsError).then(() => undefined);
      return store.create(op.resource, fresh);
    case 'update':
      if (!current)
        return assert.rejects(store.update(op.resource, touched(fresh, n), '1'), NotFoundError).then(() => undefined);
      return store.update(op.resource, touched(current, n), current.metadata.resourceVersion);
    case 'staleUpdate':
      if (!current) return undefined;
      return assert
        .rejects(store.update(op.resource, touched(current, n), String(rv(current) - 1)), ConflictError)
        .then(() => undefined);
    case 'delete':
      if (!current) return assert.rejects(store.delete(op.resource, key), NotFoundError).then(() => undefined);
      return store.delete(op.resource, key);
  }
}

async function listAll(store: Store): Promise<{ revision: number; items: Map<string, AnyObject> }> {
  const items = new Map<string, AnyObject>();
  let revision = 0;
  for (const r of RESOURCES) {
    const l = await store.list(r);
    revision = l.revision;
    for (const o of l.items) items.set(slot(r, o.metadata.name), o);
  }
  return { revision, items };
}

it(
  'revisions strictly increase, and list at R + watch from R equals the final list',
  { timeout: 120_000 },
  async () => {
    await fc.assert(
      fc.asyncProperty(groupsArb, fc.nat(), async (groups, splitSeed) => {
        const t = await openTestStore();
        try {
          const model: Model = new Map();
          const split = splitSeed % (groups.length + 1);
          let snapshot: Awaited<ReturnType<typeof listAll>> | undefined;
          // A store that was never written is at revision 1 (as etcd): the first write gets 2.
          let high = await t.store.currentRevision();
          let n = 0;
          for (const [g, group] of groups.entries()) {
            if (g === split) snapshot = await listAll(t.store);
            const results = await Promise.all(group.map((op) => runOp(t.store, model, op, n++)));
            const revs = results.filter((r): r is AnyObject => r !== undefined).map(rv);
            for (const r of revs) assert.ok(r > high, `revision ${r} is not above ${high}`);
            assert.equal(new Set(revs).size, revs.length);
            high = Math.max(high, ...revs);
            group.forEach((op, i) => {
              const r = results[i];
              if (r === undefined) return;
              if (op.action === 'delete') model.delete(slot(op.resource, op.name));
              else model.set(slot(op.resource, op.name), r);
            });
          }
          snapshot ??= await listAll(t.store);
          assert.equal(await t.store.currentRevision(), high);
          const final = await listAll(t.store);
          assert.deepEqual(final.items, model);
          await assertWatchReplays(t.store, snapshot, final.items);
        } finally {
          await t.cleanup();
        }
      }),
      { seed: 42, numRuns: 50 },
    );
  },
);

/** Applies every event after the snapshot revision to the snapshot, kind by kind, and compares with the final list. */
async function assertWatchReplays(
  store: Store,
  snapshot: { revision: number; items: Map<string, AnyObject> },
  final: Map<string, AnyObject>,
): Promise<void> {
  const rebuilt = new Map(snapshot.items);
  for (const r of RESOURCES) {
    // A sentinel write ends the stream at a known revision, so "nothing more" is observable too.
    const end = await store.create(r, objectOf(r, 'zz-sentinel'));
    const it = store.watch(r, snapshot.revision)[Symbol.asyncIterator]();
    const events = await collectUntil(it, rv(end));
    await it.return?.();
    let last = snapshot.revision;
    for (const e of events) {
      assert.ok(e.revision > last, 'watch events arrive in revision order, none twice');
      last = e.revision;
      if (e.type === 'BOOKMARK' || e.object.metadata.name === 'zz-sentinel') continue;
      const s = slot(r, e.object.metadata.name);
      if (e.type === 'DELETED') rebuilt.delete(s);
      else rebuilt.set(s, e.object);
    }
    assert.equal(last, rv(end));
  }
  assert.deepEqual(rebuilt, final);
}
