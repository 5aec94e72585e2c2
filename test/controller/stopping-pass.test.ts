import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUSPECT_CHUNK } from '../../src/controller/node-lifecycle/adaptive-detection.js';
import { defaultDetectionConfig } from '../../src/controller/node-lifecycle/detector.js';
import { harness, type Harness } from './node-lifecycle-harness.js';

const name = (i: number): string => `n${String(i).padStart(4, '0')}`;

/** Passes every 5 s until monotonic `endMs`, each handed `signal`. */
async function runUntil(h: Harness, endMs: number, signal?: AbortSignal): Promise<void> {
  while (h.clock.monotonic() < endMs) {
    await h.clock.advance(5_000);
    await h.controller.monitorNodeHealth(signal);
  }
}

/** Aborts `ac` once the controller has made `n` status writes (the ones in flight then still finish). */
function abortAfterWrites(h: Harness, ac: AbortController, n: number): void {
  let writes = 0;
  h.client.onChange((resource) => {
    if (resource === 'nodes' && ++writes === n) ac.abort(new Error('stopping'));
  });
}

describe('a stopping controller starts no more writes in its pass', () => {
  it('Suspect marks: the writes in flight finish with their verdicts, the rest is left to the next pass', async () => {
    const h = harness({ detection: defaultDetectionConfig });
    const n = 2 * SUSPECT_CHUNK + 10;
    for (let i = 0; i < n; i++) h.addNode(name(i), { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 15_000);
    assert.equal(h.statusWrites(), 0, 'silent 15 s: nobody is Suspect yet');
    const ac = new AbortController();
    abortAfterWrites(h, ac, 100);
    await runUntil(h, 20_000, ac.signal);
    const written = h.statusWrites();
    assert.ok(written >= 100 && written <= 100 + h.config.nodeWorkers, `${written} Suspect writes after the stop`);
    // Once the pacer lets them out, each write that happened has its verdict, and no other write has one.
    await runUntil(h, 20_000 + 5_000, ac.signal);
    assert.equal(h.statusWrites(), written, 'a stopped pass writes nothing, and neither does the next');
    assert.equal(h.verdicts.of(undefined, 'Suspect').length, written);
    // The next term's pass decides the rest again.
    await runUntil(h, 30_000);
    assert.equal(h.statusWrites(), n);
    await runUntil(h, 45_000); // the pacer lets the verdicts out at its rate
    assert.equal(h.verdicts.of(undefined, 'Suspect').length, n);
  });

  it('Unknown marks: the same, and the written marks keep their verdicts', async () => {
    const h = harness();
    const n = 200;
    for (let i = 0; i < n; i++) h.addNode(name(i), { ready: 'True', zone: 'z' });
    await h.controller.monitorNodeHealth();
    await runUntil(h, 40_000);
    assert.equal(h.statusWrites(), 0, 'within the grace period');
    const ac = new AbortController();
    abortAfterWrites(h, ac, 20);
    await runUntil(h, 60_000, ac.signal);
    const written = h.statusWrites();
    assert.ok(written >= 20 && written <= 20 + h.config.nodeWorkers, `${written} Unknown writes after the stop`);
    assert.equal(h.verdicts.of(undefined, 'MarkUnknown').length, written);
    await runUntil(h, 70_000);
    assert.equal(h.verdicts.of(undefined, 'MarkUnknown').length, n);
    for (let i = 0; i < n; i++) {
      const ready = h.node(name(i)).status.conditions?.find((c) => c.type === 'Ready');
      assert.equal(ready?.status, 'Unknown', name(i));
    }
  });
});
