import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KVClient } from 'etcd3';
import {
  ConflictError,
  GoneError,
  NotFoundError,
  ServiceUnavailableError,
  TooManyRequestsError,
} from '../../src/core/errors.js';
import { openEtcdStore, type EtcdStore, type EtcdStoreOptions } from '../../src/store/etcd/etcd-store.js';
import { pickCompactionRevision } from '../../src/store/etcd/etcd-compactor.js';
import { eventually } from '../support/eventually.js';
import { freePort, startEtcd, type TestEtcd } from '../support/etcd.js';
import { FakeClock } from '../support/fake-clock.js';
import { collectUntil, lease, nextWithin, node, rv, touched } from './fixtures.js';
import { runStoreContract, type ContractBackend } from './store-contract.js';

// One throw-away etcd for the whole file; every store gets its own key prefix so tests never see each other.
const ctx: { etcd?: TestEtcd; seq: number } = { seq: 0 };

before(async () => {
  ctx.etcd = await startEtcd();
});
after(async () => {
  await ctx.etcd?.stop();
});

async function openTestStore(options: Partial<EtcdStoreOptions> = {}): Promise<EtcdStore> {
  assert.ok(ctx.etcd, 'etcd did not start');
  return openEtcdStore({ endpoints: [ctx.etcd.endpoint], prefix: `/test-${process.pid}-${++ctx.seq}`, ...options });
}

async function etcdBackend(): Promise<ContractBackend> {
  const store = await openTestStore();
  return {
    store,
    cleanup: () => store.close(),
    compact: async () => {
      await store.compact();
    },
    expireLists: async () => {
      await store.compact();
    },
  };
}

runStoreContract('etcd', etcdBackend);

describe('etcd store specifics', () => {
  it('objects live under <prefix>/<resource>/<key>; two prefixes on one etcd are separate stores', async () => {
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      const n = await a.create('nodes', node('shared'));
      await assert.rejects(b.get('nodes', 'shared'), NotFoundError);
      await b.create('nodes', node('shared'));
      assert.deepEqual(await a.get('nodes', 'shared'), n);
      assert.equal((await a.list('nodes')).items.length, 1);
      // Revisions are etcd's global counter: b's write moved a's revision too.
      assert.ok((await a.currentRevision()) > rv(n));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a watch on one store sees writes made through another store on the same prefix (several servers)', async () => {
    const a = await openTestStore();
    const b = await openEtcdStore({ endpoints: [ctx.etcd!.endpoint], prefix: a.prefix });
    try {
      const from = await a.currentRevision();
      const it = a.watch('leases', from)[Symbol.asyncIterator]();
      const pending = nextWithin(it);
      const l = await b.create('leases', lease('n1'));
      const got = await pending;
      assert.deepEqual(got.value, { type: 'ADDED', object: l, revision: rv(l) });
      const l2 = await b.update('leases', touched(l, 1), l.metadata.resourceVersion);
      const gone = await b.delete('leases', 'node-lease/n1');
      const rest = await collectUntil(it, rv(gone));
      await it.return?.();
      assert.deepEqual(rest, [
        { type: 'MODIFIED', object: l2, revision: rv(l2) },
        { type: 'DELETED', object: gone, revision: rv(gone) },
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a compaction by another server is learnt from etcd: the watch fails with Gone and compactedRevision moves', async () => {
    const a = await openTestStore();
    const other = await openEtcdStore({ endpoints: [ctx.etcd!.endpoint], prefix: a.prefix });
    try {
      const n = await a.create('nodes', node('a'));
      await a.update('nodes', touched(n, 1), n.metadata.resourceVersion);
      const compacted = await other.compact();
      assert.equal(await a.compactedRevision(), 0, 'a has not seen the compaction yet');
      const it = a.watch('nodes', rv(n) - 1)[Symbol.asyncIterator]();
      await assert.rejects(nextWithin(it), GoneError);
      assert.equal(await a.compactedRevision(), compacted);
      const third = await openEtcdStore({ endpoints: [ctx.etcd!.endpoint], prefix: a.prefix });
      assert.equal(
        await third.compact(compacted),
        compacted,
        'compacting what another server compacted is not an error',
      );
      await third.close();
    } finally {
      await a.close();
      await other.close();
    }
  });

  it('a watcher that leaves received changes untaken past the byte budget is ended, and told at once', async () => {
    const store = await openTestStore({ maxWatchUnsentBytes: 64 * 1024 });
    try {
      const overflows: Error[] = [];
      const onOverflow = (e: Error): void => void overflows.push(e);
      const from = await store.currentRevision();
      const it = store.watch('nodes', from, { onOverflow })[Symbol.asyncIterator]();
      const first = nextWithin(it);
      await store.create('nodes', node('a'));
      await first;
      const pad = { 'a.io/pad': 'x'.repeat(20 * 1024) };
      // Separate writes arrive as separate responses; the watcher takes none of them.
      for (let i = 0; i < 8; i++)
        await store.create('nodes', { ...node(`b${i}`), metadata: { ...node(`b${i}`).metadata, annotations: pad } });
      await eventually(() => overflows.length === 1, { what: 'the overflow callback' });
      assert.ok(overflows[0] instanceof TooManyRequestsError);
      assert.match(overflows[0].message, /fell more than 64 KiB behind/);
      await assert.rejects(nextWithin(it), TooManyRequestsError);
    } finally {
      await store.close();
    }
  });

  it('an unreachable etcd is ServiceUnavailable, with the endpoint in the message', async () => {
    const port = await freePort();
    await assert.rejects(
      openEtcdStore({ endpoints: [`http://127.0.0.1:${port}`], dialTimeoutMs: 500 }),
      (err: unknown) =>
        err instanceof ServiceUnavailableError && err.code === 503 && err.message.includes(`127.0.0.1:${port}`),
    );
  });

  it('the compactor compacts to the revision that was current historyRetentionMs ago (never less than 5 min)', async () => {
    const clock = new FakeClock();
    const store = await openTestStore({ clock, compactionIntervalMs: 60_000, historyRetentionMs: 1000 });
    // Each compactor round does real etcd I/O: let it reach its next sleep before moving the fake clock.
    const asleep = (what: string): Promise<unknown> =>
      eventually(() => clock.pendingSleepers > 0, { what, timeoutMs: 5000 });
    const step = async (): Promise<void> => {
      await asleep('the compactor waiting for its next round');
      await clock.advance(60_000);
      await asleep('the compactor back asleep after its round');
    };
    try {
      await asleep('the compactor asleep after noting the opening revision'); // the compactor noted the opening revision at t=0
      const n = await store.create('nodes', node('a'));
      await step(); // t=1m: it notes rv(n)
      const noted = await store.currentRevision();
      assert.equal(noted, rv(n));
      await store.update('nodes', touched(n, 1), n.metadata.resourceVersion);
      for (let i = 0; i < 4; i++) await step(); // t=5m: only the t=0 sample is old enough
      assert.ok((await store.compactedRevision()) < rv(n), 'nothing of the last 5 minutes is compacted');
      await step(); // t=6m: the t=1m sample is 5 minutes old
      assert.equal(await store.compactedRevision(), noted);
      const it = store.watch('nodes', noted - 1)[Symbol.asyncIterator]();
      await assert.rejects(nextWithin(it), GoneError);
    } finally {
      await store.close();
    }
  });

  it('pickCompactionRevision takes the newest sample old enough and drops it and older ones', () => {
    const samples = [
      { at: 0, revision: 5 },
      { at: 10, revision: 9 },
      { at: 20, revision: 14 },
    ];
    assert.equal(pickCompactionRevision(samples, -1), undefined);
    assert.equal(pickCompactionRevision(samples, 15), 9);
    assert.deepEqual(samples, [{ at: 20, revision: 14 }]);
  });
});

describe('etcd replace: compare-and-swap first, read only when the cached version is not the expected one', () => {
  async function twoServers(): Promise<[EtcdStore, EtcdStore]> {
    const prefix = `/test-${process.pid}-${++ctx.seq}`;
    return [await openTestStore({ prefix }), await openTestStore({ prefix })];
  }
  const relabel =
    (value: string) =>
    (current: ReturnType<typeof node>): ReturnType<typeof node> => ({
      ...current,
      metadata: { ...current.metadata, labels: { ...current.metadata.labels, touched: value } },
    });

  it('builds on the current object and writes it at the expected version', async () => {
    const [a, b] = await twoServers();
    try {
      const created = await a.create('nodes', node('n1'));
      const seen: string[] = [];
      const out = await a.replace('nodes', 'n1', created.metadata.resourceVersion, (cur) => {
        seen.push(cur.metadata.uid ?? '');
        return relabel('a')(cur);
      });
      assert.deepEqual(seen, [created.metadata.uid]);
      assert.equal(out.metadata.labels?.touched, 'a');
      assert.deepEqual(await b.get('nodes', 'n1'), out);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a version another server replaced is a Conflict, though this server still holds the old one', async () => {
    const [a, b] = await twoServers();
    try {
      const created = await a.create('nodes', node('n1'));
      const byB = await b.replace('nodes', 'n1', created.metadata.resourceVersion, relabel('b'));
      await assert.rejects(a.replace('nodes', 'n1', created.metadata.resourceVersion, relabel('a')), ConflictError);
      assert.deepEqual(await a.get('nodes', 'n1'), byB, 'unchanged by the stale replace');
      // With B's version, A reads (its cache is older) and builds on B's object.
      const out = await a.replace('nodes', 'n1', byB.metadata.resourceVersion, (cur) => {
        assert.equal(cur.metadata.labels?.touched, 'b');
        return relabel('a')(cur);
      });
      assert.equal(out.metadata.labels?.touched, 'a');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a key another server deleted is NotFound; a version nobody wrote is a Conflict', async () => {
    const [a, b] = await twoServers();
    try {
      const created = await a.create('nodes', node('n1'));
      await assert.rejects(a.replace('nodes', 'n1', '1', relabel('a')), ConflictError);
      await b.delete('nodes', 'n1');
      await assert.rejects(a.replace('nodes', 'n1', created.metadata.resourceVersion, relabel('a')), NotFoundError);
      await assert.rejects(a.get('nodes', 'n1'), NotFoundError);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('renewals in a row are one round trip each: a transaction, no range read', async () => {
    const a = await openTestStore();
    const calls = { range: 0, txn: 0 };
    const proto = KVClient.prototype;
    const { range, txn } = proto;
    try {
      let cur = await a.create('nodes', node('n1'));
      proto.range = function (this: KVClient, ...args: Parameters<KVClient['range']>) {
        calls.range++;
        return range.apply(this, args);
      };
      proto.txn = function (this: KVClient, ...args: Parameters<KVClient['txn']>) {
        calls.txn++;
        return txn.apply(this, args);
      };
      for (let i = 0; i < 5; i++)
        cur = await a.replace('nodes', 'n1', cur.metadata.resourceVersion, relabel(String(i)));
      assert.deepEqual(calls, { range: 0, txn: 5 });
      proto.range = range;
      proto.txn = txn;
      const stored = await a.get('nodes', 'n1');
      assert.equal(stored.metadata.labels?.touched, '4');
      assert.equal(stored.metadata.resourceVersion, cur.metadata.resourceVersion);
    } finally {
      proto.range = range;
      proto.txn = txn;
      await a.close();
    }
  });
});
