import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evidenceLine } from '../../src/core/verdict-format.js';
import type { Verdict } from '../../src/core/verdict.js';

test('a Partitioned verdict shows its witnesses in the evidence line (docs/witnesses.md#the-verdict)', () => {
  const v = {
    apiVersion: 'shepherd.io/v1',
    kind: 'Verdict',
    metadata: { name: 'x.1', uid: 'u', resourceVersion: '1', creationTimestamp: '2026-12-01T18:00:00.000Z' },
    node: 'x',
    action: 'Partitioned',
    reason: 'NodePartitioned',
    message: 'held',
    dryRun: false,
    evidence: {
      observedAt: '2026-12-01T18:00:00.000Z',
      witnesses: [
        { node: 'b1', zone: 'zone-b', reachable: true, sawAliveAt: '2026-12-01T17:59:59.000Z' },
        { node: 'c1', zone: '', reachable: false },
      ],
    },
  } as Verdict;
  assert.equal(
    evidenceLine(v, Date.parse('2026-12-01T18:00:05.000Z')),
    'witnesses: b1 (zone-b) reaches it, c1 (default) lost it',
  );
});
