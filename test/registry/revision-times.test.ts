import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RevisionTimes } from '../../src/registry/revision-times.js';

describe('RevisionTimes', () => {
  it('answers the first sample at or after a revision, undefined after the newest', () => {
    const t = new RevisionTimes();
    assert.equal(t.writtenBy(1), undefined);
    t.record(1000, 10);
    t.record(2000, 20);
    t.record(2500, 20); // no progress: ignored
    t.record(3000, 30);
    assert.equal(t.size, 3);
    assert.deepEqual(
      [1, 10, 11, 20, 21, 30, 31].map((r) => t.writtenBy(r)),
      [1000, 1000, 2000, 2000, 3000, 3000, undefined],
    );
  });

  it('prunes old samples but keeps one that still answers for older revisions with an old time', () => {
    const t = new RevisionTimes();
    for (let i = 1; i <= 10; i++) t.record(i * 1000, i * 10);
    t.prune(5500);
    assert.equal(t.writtenBy(1), 5000);
    assert.equal(t.writtenBy(60), 6000);
    assert.equal(t.size, 6);
  });

  it('stays within its sample budget and never answers a time before the write', () => {
    const t = new RevisionTimes(4);
    for (let i = 1; i <= 10; i++) t.record(i * 1000, i * 10);
    assert.equal(t.size, 4);
    for (let r = 1; r <= 100; r++) {
      const at = t.writtenBy(r);
      assert.ok(at !== undefined && at >= Math.ceil(r / 10) * 1000, `revision ${r} → ${String(at)}`);
    }
  });
});
