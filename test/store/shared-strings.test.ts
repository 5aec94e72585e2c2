import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { shareStrings } from '../../src/store/shared-strings.js';
import { parseRows } from '../../src/store/sqlite/paged-lists.js';
import type { PageRow } from '../../src/store/sqlite/statements.js';

/**
 * Live heap bytes after full collections (the documented way to reach the collector from a test). The timer turns
 * let the collector's concurrent sweeping finish: without them, a figure still counts the garbage of the step before.
 */
async function liveHeap(): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return getHeapStatistics().used_heap_size;
}

describe('shareStrings', () => {
  it('changes no value, key or key order, in objects and arrays at any depth', () => {
    const text = JSON.stringify({
      kind: 'Node',
      metadata: { name: 'node-000001', labels: { 'topology.kubernetes.io/zone': 'zone-a' } },
      status: {
        conditions: ['Ready', 'MemoryPressure'].map((type) => ({
          type,
          status: 'True',
          lastHeartbeatTime: '2026-12-02T11:00:00.000Z',
          lastTransitionTime: '2026-12-02T10:00:00.000Z',
        })),
        addresses: [{ type: 'Hostname', address: 'node-000001' }],
        tags: ['a-long-tag-value', 'a-long-tag-value', 7, null, true, ['nested-array-string']],
      },
    });
    const seen = new Map<string, string>();
    const first: unknown = JSON.parse(text);
    const second: unknown = JSON.parse(text);
    shareStrings(first, seen);
    shareStrings(second, seen);
    assert.deepEqual(first, JSON.parse(text));
    assert.equal(JSON.stringify(second), text, 'same keys in the same order');
    assert.ok(seen.has('2026-12-02T11:00:00.000Z') && seen.has('nested-array-string'));
    assert.ok(!seen.has('Ready') && !seen.has('zone-a'), 'strings of up to 10 characters are left to the parser');
    shareStrings('a top-level string is nothing to change', seen);
    shareStrings(null, seen);
  });

  it('makes a list hold one copy of a value its rows repeat (parseRows)', async () => {
    const rows = (value: string): PageRow[] =>
      Array.from({ length: 4000 }, (_, i) => [`k${i}`, JSON.stringify({ i, a: value, b: [value] })] as PageRow);
    const long = 'x'.repeat(1000);
    // Parsed plainly, the page holds 8,000 copies of the 1,000-byte value (8 MB); shared, one a chunk of rows.
    const plainStart = await liveHeap();
    let plain: unknown[] | undefined = rows(long).map((r) => JSON.parse(r[1]) as unknown);
    const plainBytes = (await liveHeap()) - plainStart;
    const sample = plain.slice(0, 3);
    plain = undefined;
    const sharedStart = await liveHeap();
    const shared = await parseRows<{ a: string }>(rows(long));
    const sharedBytes = (await liveHeap()) - sharedStart;
    assert.equal(shared.length, 4000);
    assert.deepEqual(shared.slice(0, 3), sample);
    assert.ok(plainBytes > 7_000_000, `plain parse held ${plainBytes} bytes`);
    assert.ok(sharedBytes < 2_000_000, `shared parse held ${sharedBytes} bytes`);
  });
});
