import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { EventLoopDelayGauges } from '../../src/api/event-loop-delay.js';
import { ApiMetrics } from '../../src/api/metrics.js';

function gauge(text: string, q: string): number {
  const m = new RegExp(`^shepherd_event_loop_delay_${q}_seconds (\\S+)$`, 'm').exec(text);
  assert.ok(m, `shepherd_event_loop_delay_${q}_seconds in\n${text}`);
  return Number(m[1]);
}

function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // holds the event loop, as a long synchronous list or checkpoint would
  }
}

describe('event-loop delay gauges', () => {
  it('show a stall in the next scrape, and only in that one', async () => {
    const registry = new Registry();
    const loop = new EventLoopDelayGauges(registry, 20);
    try {
      await sleep(50);
      await registry.metrics(); // a first window, whatever happened while the test started
      await sleep(50); // the histogram's first sample after a reset only starts its clock
      block(150);
      await sleep(50); // the sampling timer runs (late) and records the stall
      const stalled = await registry.metrics();
      assert.ok(gauge(stalled, 'max') >= 0.12, `max ${gauge(stalled, 'max')}`);
      assert.ok(gauge(stalled, 'p99') >= gauge(stalled, 'p50'));
      await sleep(200); // ten samples of an idle loop
      const calm = await registry.metrics();
      assert.ok(gauge(calm, 'max') < 0.1, `the stall stays in its own window, max ${gauge(calm, 'max')}`);
      // The sampling interval itself is not a delay: an idle loop's median is well under the 20 ms interval.
      assert.ok(gauge(calm, 'p50') < 0.015, `p50 ${gauge(calm, 'p50')}`);
    } finally {
      loop.close();
    }
  });

  it('are part of the server metrics with process metrics, and absent without them', async () => {
    const withProcess = new ApiMetrics();
    try {
      const text = await withProcess.register.metrics();
      for (const q of ['p50', 'p99', 'max']) assert.ok(gauge(text, q) >= 0);
    } finally {
      withProcess.loopDelay?.close();
    }
    const bare = await new ApiMetrics({ defaultMetrics: false }).register.metrics();
    assert.doesNotMatch(bare, /shepherd_event_loop_delay/);
  });
});
