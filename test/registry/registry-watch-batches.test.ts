import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { RegistryWatchEvent } from '../../src/registry/registry-watch.js';
import { eventBatches } from '../../src/store/event-batches.js';
import { nextWithin } from '../store/fixtures.js';
import { nodeBody, openTestRegistry, type TestRegistry } from '../api/harness.js';

const gold = (name: string): Record<string, unknown> =>
  nodeBody(name, { metadata: { name, labels: { tier: 'gold' } } });
const described = (batch: RegistryWatchEvent<{ metadata: { name: string } }>[] | undefined): string[] =>
  (batch ?? []).map((e) => (e.type === 'BOOKMARK' ? 'BOOKMARK' : `${e.type} ${e.object.metadata.name}`));

describe('registry watch batch path', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await openTestRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  it('passes a commit on as one array of the changes its selector matches, in order', async () => {
    const from = String(await t.store.currentRevision());
    const stream = t.registry.watch('nodes', { resourceVersion: from, labelSelector: 'tier=gold' });
    const batches = eventBatches(stream)[Symbol.asyncIterator]();
    const pending = nextWithin(batches);
    await Promise.all([
      t.registry.nodes.create(gold('g1')),
      t.registry.nodes.create(nodeBody('plain')),
      t.registry.nodes.create(gold('g2')),
    ]);
    assert.deepEqual(described((await pending).value), ['ADDED g1', 'ADDED g2']);
    await batches.return?.(undefined);
  });

  it('the initial state of a watch without resourceVersion comes as one array, then the watch continues', async () => {
    await Promise.all([t.registry.nodes.create(gold('g1')), t.registry.nodes.create(gold('g2'))]);
    const batches = eventBatches(t.registry.watch('nodes', {}))[Symbol.asyncIterator]();
    assert.deepEqual(described((await nextWithin(batches)).value), ['ADDED g1', 'ADDED g2']);
    const pending = nextWithin(batches);
    await t.registry.nodes.create(gold('g3'));
    assert.deepEqual(described((await pending).value), ['ADDED g3']);
    await batches.return?.(undefined);
  });
});
