import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { AnyObject } from '../../src/core/kinds.js';
import type { Lease } from '../../src/core/lease.js';
import { decodeSegment, DeltaBases, encodeSegment, type LogRecord } from '../../src/store/sqlite/change-log.js';
import { applyPatch, diffObjects } from '../../src/store/sqlite/change-log-patch.js';
import type { Pod } from '../../src/core/pod.js';
import { deployment, lease, nextWithin, node, pod, rv, verdict } from './fixtures.js';
import { openTestStore } from './sqlite-harness.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const value: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string(),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'status', 'spec', '__proto__', 'constructor'), tie('v'), {
      maxKeys: 4,
    }),
  ),
})).v;

const objectArb = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('Node'),
  metadata: fc.record({
    name: fc.constant('n1'),
    labels: fc.dictionary(fc.constantFrom('x', 'y', 'z'), fc.string(), { maxKeys: 3 }),
  }),
  spec: fc.dictionary(fc.constantFrom('a', 'b', 'taints'), value, { maxKeys: 3 }),
  status: value,
}) as unknown as fc.Arbitrary<AnyObject>;

describe('change-log deltas', () => {
  it('patching the base with the diff gives back the next version exactly (fast-check, seed 11)', () => {
    fc.assert(
      fc.property(objectArb, objectArb, fc.integer({ min: 1, max: 1e9 }), (base, next, revision) => {
        const baseJson = JSON.stringify({ ...base, metadata: { ...base.metadata, resourceVersion: '1' } });
        const expected = { ...next, metadata: { ...next.metadata, resourceVersion: String(revision) } } as AnyObject;
        const patched = applyPatch(baseJson, diffObjects(JSON.parse(baseJson) as AnyObject, expected), revision);
        assert.deepStrictEqual(patched, JSON.parse(JSON.stringify(expected)));
      }),
      { seed: 11, numRuns: 500 },
    );
  });

  it('a segment decodes to its records, in revision order from its first revision', () => {
    const records: LogRecord[] = [
      { kind: 'leases', type: 'ADDED', json: JSON.stringify(lease('a')) },
      { kind: 'nodes', type: 'MODIFIED', base: 3, patch: '[[["spec","unschedulable"],true]]' },
      { kind: 'events', type: 'DELETED', json: '{"x":"line\\nbreak"}' },
    ];
    const { data, kinds } = encodeSegment(records);
    assert.equal(kinds, 2 | 1 | 4);
    assert.deepEqual(
      decodeSegment(data, 40),
      records.map((r, i) => ({ ...r, revision: 40 + i })),
    );
    const damaged = Buffer.from(data);
    damaged[0] = 9;
    assert.throws(
      () => decodeSegment(damaged, 40),
      /segment at revision 40 has format 9, which this shepherd cannot read/,
    );
  });

  it('keeps delta bases within a byte budget: an object it forgot is simply logged in full', () => {
    const bases = new DeltaBases({ entries: 100, bytes: 2000 }, 100);
    const staged = new Map();
    for (let i = 0; i < 10; i++) {
      const obj = { ...lease(`l${i}`), metadata: { ...lease(`l${i}`).metadata, resourceVersion: String(i + 1) } };
      bases.record('leases', `node-lease/l${i}`, 'ADDED', obj, JSON.stringify(obj), i + 1, staged);
    }
    bases.commit(staged);
    assert.ok(bases.size < 10 && bases.size > 0, `kept ${bases.size} of 10 bases of ~300 bytes in 2000`);
  });

  it("logs a renewal as a delta against the lease's last full record, within the window, and forgets rolled-back batches", () => {
    const bases = new DeltaBases(10, 100);
    const l = (renewTime: string, r: number): Lease => ({
      ...lease('a', 'node-lease', renewTime),
      metadata: { ...lease('a').metadata, resourceVersion: String(r) },
    });
    const first = new Map();
    const added = bases.record(
      'leases',
      'node-lease/a',
      'ADDED',
      l('2026-11-29T12:00:00.000Z', 1),
      JSON.stringify(l('2026-11-29T12:00:00.000Z', 1)),
      1,
      first,
    );
    assert.ok('json' in added);
    const rolledBack = new Map();
    bases.record(
      'leases',
      'node-lease/a',
      'MODIFIED',
      l('2026-11-29T12:00:10.000Z', 2),
      JSON.stringify(l('2026-11-29T12:00:10.000Z', 2)),
      2,
      rolledBack,
    );
    assert.equal(bases.size, 0, 'nothing is a base before its batch committed');
    bases.commit(first);
    const staged = new Map();
    const renewal = bases.record(
      'leases',
      'node-lease/a',
      'MODIFIED',
      l('2026-11-29T12:00:20.000Z', 3),
      JSON.stringify(l('2026-11-29T12:00:20.000Z', 3)),
      3,
      staged,
    );
    assert.ok('patch' in renewal && renewal.base === 1);
    assert.equal(renewal.patch, '[[["spec","renewTime"],"2026-11-29T12:00:20.000Z"]]');
    const late = bases.record(
      'leases',
      'node-lease/a',
      'MODIFIED',
      l('2026-11-29T12:00:30.000Z', 101),
      JSON.stringify(l('2026-11-29T12:00:30.000Z', 101)),
      101,
      staged,
    );
    assert.ok('json' in late, 'a base 100 revisions back is outside the window: full record');
  });
});

describe('change log on disk', () => {
  it('a burst of renewals costs a few bytes each, far less than full records, and watches still replay every version exactly', async (tc) => {
    // A fixed-seed generator: uids and renew times as varied as real agents make them, the same every run.
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const hex = (n: number): string => Array.from({ length: n }, () => ((next() >>> 16) % 16).toString(16)).join('');
    const uids = Array.from({ length: 100 }, () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`);
    const times = Array.from({ length: 51 }, (_, round) =>
      uids.map(() =>
        new Date(Date.parse('2026-11-29T12:00:00.000Z') + round * 10_000 + ((next() >>> 8) % 10_000)).toISOString(),
      ),
    );
    const burst = async (
      deltaWindow?: number,
    ): Promise<{ perChange: number; written: Lease[]; t: Awaited<ReturnType<typeof openTestStore>> }> => {
      const t = await openTestStore(deltaWindow === undefined ? {} : { deltaWindow });
      let leases = await Promise.all(
        uids.map((uid, i) =>
          t.store.create('leases', {
            ...lease(`l${i}`, 'node-lease', times[0]?.[i]),
            metadata: { ...lease(`l${i}`).metadata, uid },
          }),
        ),
      );
      const written: Lease[] = [...leases];
      for (let round = 1; round <= 50; round++) {
        leases = await Promise.all(
          leases.map((l, i) =>
            t.store.update(
              'leases',
              { ...l, spec: { ...l.spec, renewTime: times[round]?.[i] as string } },
              l.metadata.resourceVersion,
            ),
          ),
        );
        written.push(...leases);
      }
      const bytes = t.store.database.prepare('SELECT sum(length(data)) FROM change_log').pluck().get() as number;
      return { perChange: bytes / written.length, written, t };
    };
    const full = await burst(0); // deltaWindow 0: every change logged whole, compressed per commit
    await full.t.cleanup();
    const { perChange, written, t } = await burst();
    tc.diagnostic(
      `change log per change (100 creates, 5,000 renewals in commits of 100): ${perChange.toFixed(1)} B with deltas, ${full.perChange.toFixed(1)} B logged whole`,
    );
    assert.ok(perChange < 15, `the log takes ${perChange.toFixed(1)} bytes per change`);
    assert.ok(
      perChange * 3 < full.perChange,
      `deltas take ${perChange.toFixed(1)} B per change, whole records ${full.perChange.toFixed(1)} B`,
    );
    const from = rv(written[0] as Lease) - 1;
    const it = t.store.watch('leases', from)[Symbol.asyncIterator]();
    for (const [i, w] of written.entries()) {
      assert.deepEqual((await nextWithin(it)).value, {
        type: i < 100 ? 'ADDED' : 'MODIFIED',
        object: w,
        revision: rv(w),
      });
    }
    await it.return?.();
    await t.cleanup();
  });

  it('compaction keeps the segments a kept delta needs: a watch from the compacted revision decodes every change', async () => {
    const window = 50;
    const t = await openTestStore({ deltaWindow: window });
    let l = await t.store.create('leases', lease('a'));
    await t.store.create('nodes', node('n'));
    const versions: Lease[] = [];
    for (let i = 0; i < 300; i++) {
      l = await t.store.update(
        'leases',
        { ...l, spec: { ...l.spec, leaseTransitions: i } },
        l.metadata.resourceVersion,
      );
      versions.push(l);
    }
    const cut = rv(versions[199] as Lease);
    assert.equal(await t.store.compact(cut), cut);
    assert.equal(t.store.stats().keptRevisions, 100);
    // Every kept delta's base is at most `window` revisions back, so still on disk.
    assert.equal(t.store.stats().changeLogSegments, 100 + window);
    const it = t.store.watch('leases', cut)[Symbol.asyncIterator]();
    for (const v of versions.slice(200))
      assert.deepEqual((await nextWithin(it)).value, { type: 'MODIFIED', object: v, revision: rv(v) });
    await it.return?.();
    await assert.rejects(
      nextWithin(t.store.watch('leases', cut - 1)[Symbol.asyncIterator]()),
      /too old resource version/,
    );
    await t.store.compact(await t.store.currentRevision());
    assert.equal(
      t.store.stats().changeLogSegments,
      window,
      'one commit per segment here: the last `window` stay on disk',
    );
    await t.cleanup();
  });

  it('a pod round-trips through the log: created, bound, status reported, marked, deleted, in one commit or many', async () => {
    const t = await openTestStore();
    await t.store.create('nodes', node('n1'));
    const start = await t.store.currentRevision();
    const created = await t.store.create('pods', pod('web-1', 'team-a'));
    const bound = await t.store.update(
      'pods',
      { ...created, spec: { ...created.spec, nodeName: 'n1' } },
      created.metadata.resourceVersion,
    );
    const running = await t.store.update(
      'pods',
      { ...bound, status: { phase: 'Running', hostIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] } },
      bound.metadata.resourceVersion,
    );
    const marked = await t.store.update(
      'pods',
      {
        ...running,
        metadata: {
          ...running.metadata,
          deletionTimestamp: '2026-11-29T12:00:30.000Z',
          deletionGracePeriodSeconds: 30,
        },
      },
      running.metadata.resourceVersion,
    );
    // Several kinds in one commit: the segment's kind bits let a pod watch find its change among them.
    const [, , gone] = await Promise.all([
      t.store.create('deployments', deployment('web', 'team-a')),
      t.store.create('verdicts', verdict('n1.0001')),
      t.store.delete('pods', 'team-a/web-1'),
    ]);
    const written: Array<[string, Pod]> = [
      ['ADDED', created],
      ['MODIFIED', bound],
      ['MODIFIED', running],
      ['MODIFIED', marked],
      ['DELETED', gone],
    ];
    const it = t.store.watch('pods', start)[Symbol.asyncIterator]();
    for (const [type, object] of written) {
      assert.deepEqual((await nextWithin(it)).value, { type, object, revision: rv(object) });
    }
    await it.return?.();
    assert.ok(
      (t.store.database.prepare('SELECT count(*) FROM change_log WHERE (kinds & 16) != 0').pluck().get() as number) >=
        5,
    );
    for (const [kind, bit] of [
      ['deployments', 32],
      ['verdicts', 64],
    ] as const) {
      const d = t.store.watch(kind, start)[Symbol.asyncIterator]();
      assert.equal(((await nextWithin(d)).value as { type: string }).type, 'ADDED', kind);
      await d.return?.();
      assert.equal(
        t.store.database.prepare('SELECT count(*) FROM change_log WHERE (kinds & ?) != 0').pluck().get(bit),
        1,
        kind,
      );
    }
    await t.cleanup();
  });
});
