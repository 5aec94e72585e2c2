import { RequestStats } from '../instrumented-client.js';
import { LatencyHistogram } from '../latency-histogram.js';

/** The light fleet's requests, by what they are for (the index is the op code in light-fleet.ts). */
export const LIGHT_OPS = ['node-create', 'node-get', 'status', 'lease-create', 'lease-get', 'renew'] as const;
export type LightOp = (typeof LIGHT_OPS)[number];

/** One counting window: renewals and errors as the agent-mode report counts them, plus latency per operation. */
export class LightWindow {
  readonly requests = new RequestStats();
  readonly latency: LatencyHistogram[] = LIGHT_OPS.map(() => new LatencyHistogram());

  reset(): void {
    this.requests.reset();
    for (const h of this.latency) h.reset();
  }
}

export interface LightStats {
  /** Since the last live report. */
  window: LightWindow;
  /** Since start, or since the last `mark`. */
  total: LightWindow;
}

export function newLightStats(): LightStats {
  return { window: new LightWindow(), total: new LightWindow() };
}

export interface OpFigures {
  op: LightOp;
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const round = (v: number): number => Math.round(v * 100) / 100;

/** p50/p99/max of every operation that ran in the window. */
export function opFigures(w: LightWindow): OpFigures[] {
  return LIGHT_OPS.flatMap((op, i) => {
    const h = w.latency[i] as LatencyHistogram;
    if (h.count === 0) return [];
    return [{ op, count: h.count, p50Ms: round(h.quantile(0.5)), p99Ms: round(h.quantile(0.99)), maxMs: round(h.max) }];
  });
}
