import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AlreadyExistsError,
  ConflictError,
  TooManyRequestsError,
  NotFoundError,
  ServiceUnavailableError,
} from '../../src/core/errors.js';
import type { Lease } from '../../src/core/lease.js';
import type { Node } from '../../src/core/node.js';
import { eventually } from '../support/eventually.js';
import { lease, nextWithin, node, rv, touched } from './fixtures.js';
import { openTestStore } from './sqlite-harness.js';

function recordCommits(): { commits: number[]; onCommit: (size: number) => void } {
  const commits: number[] = [];
  return { commits, onCommit: (size) => commits.push(size) };
}

describe('sqlite group commit', () => {
  it('writes of one event-loop turn share one transaction, each with its own result in call order', async () => {
    const { commits, onCommit } = recordCommits();
    const t = await openTestStore({ onCommit });
    const created = await Promise.all(Array.from({ length: 100 }, (_, i) => t.store.create('nodes', node(`n${i}`))));
    assert.deepEqual(commits, [100]);
    assert.deepEqual(
      created.map(rv),
      Array.from({ length: 100 }, (_, i) => i + 2),
      'a new store is at revision 1, so its first write is 2',
    );
    assert.deepEqual(
      created.map((c) => c.metadata.name),
      Array.from({ length: 100 }, (_, i) => `n${i}`),
    );
    await t.store.create('nodes', node('later'));
    assert.deepEqual(commits, [100, 1], 'a later turn commits on its own');
    await t.cleanup();
  });

  it('validates each write against what the earlier writes of the batch left', async () => {
    const { commits, onCommit } = recordCommits();
    const t = await openTestStore({ onCommit });
    const l = await t.store.create('leases', lease('n1'));
    const [first, second, dup, fresh, del] = await Promise.allSettled([
      t.store.update('leases', touched(l, 1), l.metadata.resourceVersion),
      t.store.update('leases', touched(l, 2), l.metadata.resourceVersion),
      t.store.create('leases', lease('n1')),
      t.store.create('nodes', node('x')),
      t.store.delete('nodes', 'x'),
    ]);
    assert.deepEqual(commits, [1, 5]);
    assert.equal(first.status, 'fulfilled');
    assert.ok(second.status === 'rejected' && second.reason instanceof ConflictError);
    assert.ok(dup.status === 'rejected' && dup.reason instanceof AlreadyExistsError);
    assert.ok(fresh.status === 'fulfilled' && del.status === 'fulfilled');
    assert.equal(rv(del.value), rv(fresh.value) + 1, 'failed writes take no revision');
    assert.equal((await t.store.get('leases', 'node-lease/n1')).metadata.annotations?.['test/n'], '1');
    await assert.rejects(t.store.get('nodes', 'x'), NotFoundError);
    await t.cleanup();
  });
});

describe('sqlite storage failure', () => {
  it('a failed commit refuses the whole batch with ServiceUnavailable, changes nothing, and writes work again later', async () => {
    const t = await openTestStore();
    const a = await t.store.create('nodes', node('a'));
    const watch = t.store.watch('nodes', rv(a))[Symbol.asyncIterator]();
    const firstEvent = nextWithin(watch);
    const before = await t.store.currentRevision();
    const pages = t.store.database.pragma('page_count', { simple: true }) as number;
    t.store.database.pragma(`max_page_count = ${pages}`);
    const big = (name: string) => ({
      ...node(name),
      metadata: { ...node(name).metadata, annotations: { pad: 'x'.repeat(20_000) } },
    });
    const results = await Promise.allSettled([
      t.store.update('nodes', touched(a, 1), a.metadata.resourceVersion),
      ...Array.from({ length: 10 }, (_, i) => t.store.create('nodes', big(`big${i}`))),
    ]);
    for (const r of results) {
      assert.ok(
        r.status === 'rejected' && r.reason instanceof ServiceUnavailableError,
        'every write of the batch is refused',
      );
      assert.match((r.reason as Error).message, /^storage is unavailable: .*SQLITE_FULL/);
    }
    assert.equal(await t.store.currentRevision(), before);
    assert.deepEqual(await t.store.get('nodes', 'a'), a, 'reads still work and see the old state');
    assert.deepEqual(
      (await t.store.list('nodes')).items.map((n) => n.metadata.name),
      ['a'],
    );
    t.store.database.pragma('max_page_count = 1073741823');
    const b = await t.store.create('nodes', big('big0'));
    assert.equal(rv(b), before + 1, 'no revision was burnt by the failed batch');
    assert.deepEqual(
      (await firstEvent).value,
      { type: 'ADDED', object: b, revision: rv(b) },
      'watchers saw nothing of it',
    );
    await watch.return?.();
    await t.cleanup();
  });
});

describe('sqlite bounded growth', () => {
  it('a steady rewrite load does not grow the database or the WAL once compaction runs', async () => {
    // deltaWindow: segments are kept that many revisions past the compacted one (delta bases); 10 rounds here.
    const t = await openTestStore({ historyRetentionMs: 5000, compactionIntervalMs: 1000, deltaWindow: 500 });
    const pad = 'p'.repeat(400);
    let leases: Lease[] = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.store.create('leases', { ...lease(`n${i}`), metadata: { ...lease(`n${i}`).metadata, annotations: { pad } } }),
      ),
    );
    const round = async (r: number): Promise<void> => {
      leases = await Promise.all(
        leases.map((l) =>
          t.store.update(
            'leases',
            { ...l, spec: { ...l.spec, renewTime: new Date(t.clock.now()).toISOString(), leaseTransitions: r } },
            l.metadata.resourceVersion,
          ),
        ),
      );
      await t.clock.advance(1000);
    };
    for (let r = 0; r < 20; r++) await round(r);
    const warm = t.store.stats();
    for (let r = 20; r < 220; r++) await round(r);
    const after = t.store.stats();
    assert.ok(
      after.pageCount <= warm.pageCount * 1.1 + 4,
      `database grew from ${warm.pageCount} to ${after.pageCount} pages`,
    );
    assert.ok(after.keptRevisions <= 50 * 7, `change log keeps ${after.keptRevisions} revisions`);
    // Each checkpoint step lets the next commit start the WAL over: 200 rounds without that would leave ~40 MB.
    assert.ok(after.walBytes <= 2 * 1024 * 1024, `the WAL grew to ${after.walBytes} bytes under a steady load`);
    // Once the writes stop, a step truncates it (on the worker's schedule, after the clock's tick returned).
    await eventually(
      async () => {
        await t.clock.advance(1000);
        return t.store.stats().walBytes <= 64 * 1024;
      },
      { what: 'the WAL truncated once the writes stopped', last: () => `${t.store.stats().walBytes} bytes` },
    );
    assert.ok((await t.store.compactedRevision()) > 50 * 200, 'history was compacted');
    await t.cleanup();
  });
});

describe('sqlite watch back-pressure', () => {
  it('a watcher that falls too many events behind is ended, resumably; the writer never waits for it', async () => {
    const t = await openTestStore({ watchQueueCapacity: 5 });
    const from = await t.store.currentRevision();
    const it = t.store.watch('nodes', from)[Symbol.asyncIterator]();
    const first = nextWithin(it);
    const a = await t.store.create('nodes', node('a'));
    assert.equal((await first).value?.revision, rv(a));
    for (let i = 0; i < 10; i++) await t.store.create('nodes', node(`b${i}`));
    await assert.rejects(
      nextWithin(it),
      (e: unknown) => e instanceof TooManyRequestsError && /fell more than .* 5 events behind/.test(e.message),
    );
    const keeps = t.store.watch('nodes', from)[Symbol.asyncIterator]();
    assert.equal((await nextWithin(keeps)).value?.revision, rv(a), 'a fresh watch replays from the log');
    await keeps.return?.();
    await t.cleanup();
  });

  it('a watcher whose waiting changes pass the byte budget is ended and told at once', async () => {
    const t = await openTestStore({ maxWatchUnsentBytes: 64 * 1024 });
    const from = await t.store.currentRevision();
    const overflows: Error[] = [];
    const it = t.store.watch('nodes', from, { onOverflow: (e) => overflows.push(e) })[Symbol.asyncIterator]();
    const first = nextWithin(it);
    const a = await t.store.create('nodes', node('a'));
    assert.equal((await first).value?.revision, rv(a));
    const big = { 'a.io/pad': 'x'.repeat(20 * 1024) };
    const bigNode = (name: string): Node => ({ ...node(name), metadata: { ...node(name).metadata, annotations: big } });
    for (let i = 0; i < 3; i++) await t.store.create('nodes', bigNode(`b${i}`));
    assert.equal(overflows.length, 0, 'three 20 KiB changes fit in 64 KiB');
    await t.store.create('nodes', bigNode('b3'));
    // Told during the commit, not when the watcher next pulls.
    assert.equal(overflows.length, 1);
    assert.ok(overflows[0] instanceof TooManyRequestsError);
    assert.match(
      overflows[0].message,
      /fell more than 64 KiB or 10000 events behind .*resource version \d+ was the last sent/,
    );
    await assert.rejects(nextWithin(it), TooManyRequestsError);
    await t.cleanup();
  });
});
