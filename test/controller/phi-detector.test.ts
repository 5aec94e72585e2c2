import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultDetectionConfig,
  detectionTimings,
  detectorEvidence,
  newDetection,
  resetDetection,
  updateDetection,
  validateDetectionConfig,
  type DetectionConfig,
} from '../../src/controller/node-lifecycle/detector.js';
import { IntervalWindow, phi, phiDeviations, PHI_CAP } from '../../src/controller/node-lifecycle/phi-detector.js';
import { VerdictEvidenceSchema } from '../../src/core/verdict-schema.js';

const cdf = (p: number): number => 1 - 10 ** -p;

describe('phi: the formula of Akka PhiAccrualFailureDetector', () => {
  it('approximates the normal CDF (Akka: "use good enough cumulative distribution function")', () => {
    const close = (a: number, b: number, eps: number): void => assert.ok(Math.abs(a - b) <= eps, `${a} ≈ ${b}`);
    close(cdf(phi(0, 0, 10)), 0.5, 0.001);
    close(cdf(phi(6, 0, 10)), 0.7257, 0.005);
    close(cdf(phi(15, 0, 10)), 0.9332, 0.005);
    close(cdf(phi(20, 0, 10)), 0.97725, 0.005);
    close(cdf(phi(25, 0, 10)), 0.99379, 0.005);
    close(cdf(phi(35, 0, 10)), 0.99977, 0.005);
    close(cdf(phi(40, 0, 10)), 0.99997, 0.0001);
    for (let x = 0; x < 40; x++) assert.ok(phi(x, 0, 10) < phi(x + 1, 0, 10), `phi grows from ${x}`);
  });

  it('gives realistic values (Akka: mean 1000 ms, deviation 100 ms)', () => {
    const expected: Array<[number, number]> = [
      [0, 0],
      [500, 0.1],
      [1000, 0.3],
      [1200, 1.6],
      [1400, 4.7],
      [1600, 10.8],
      [1700, 15.3],
    ];
    for (const [t, p] of expected)
      assert.ok(Math.abs(phi(t, 1000, 100) - p) <= 0.1, `phi(${t}) = ${phi(t, 1000, 100)}`);
    assert.ok(phi(1100, 1000, 500) < phi(1100, 1000, 100), 'a larger deviation gives a lower phi');
  });

  it('is capped and never NaN for a silence far past the mean', () => {
    assert.equal(phi(1e9, 1000, 1), PHI_CAP);
    assert.ok(Number.isFinite(phi(5_000, 1000, 100)));
  });

  it('phiDeviations inverts phi: phi(mean + y·sd) is the threshold', () => {
    for (const t of [1, 3, 8, 10, 12]) {
      const y = phiDeviations(t);
      assert.ok(Math.abs(phi(10_000 + y * 1_000, 10_000, 1_000) - t) < 1e-6, `threshold ${t}: y ${y}`);
    }
  });

  it('the window keeps the last N intervals with their mean and population deviation', () => {
    const w = new IntervalWindow(3);
    for (const v of [100, 200, 300, 400]) w.add(v);
    assert.equal(w.size, 3);
    assert.equal(w.mean(), 300);
    assert.ok(Math.abs(w.stdDeviation() - Math.sqrt(20_000 / 3)) < 1e-9);
    w.clear();
    assert.equal(w.size, 0);
    assert.equal(w.mean(), 0);
  });
});

const PHI: DetectionConfig = { ...defaultDetectionConfig, failureDetector: 'phi', phiMinSamples: 5 };
const timings = (cfg: DetectionConfig = PHI) => detectionTimings(cfg, 5_000, 50_000);

/** A node renewing every `intervalMs` (observed exactly), `n` times from probe 0. */
function regular(intervalMs: number, n: number, cfg: DetectionConfig = PHI) {
  const det = newDetection(0);
  const t = timings(cfg);
  for (let i = 1; i <= n; i++) updateDetection(det, i * intervalMs, 40, t);
  return { det, t };
}

describe('phi detector: bounds, fallbacks, reset', () => {
  it('too few samples: the fixed rule (no earlier expiry; Suspect after 1.5 renew intervals)', () => {
    const { det } = regular(10_000, 4);
    assert.equal(det.expiryGraceMs, undefined);
    assert.equal(det.suspectAfterMs, 15_000);
    assert.equal(detectorEvidence(det, 20_000, PHI).kind, 'fixed');
  });

  it('a regular node is never Unknown before the minimum grace (2 renew intervals + one period)', () => {
    const { det } = regular(10_000, 20);
    assert.equal(det.expiryGraceMs, 25_000, 'phi alone would say ~12.6 s: bounded below');
    assert.ok((det.suspectAfterMs as number) >= 10_000 && (det.suspectAfterMs as number) < 25_000);
    const ev = detectorEvidence(det, 26_000, PHI);
    assert.equal(ev.kind, 'phi');
    assert.equal(ev.threshold, 8);
    assert.equal(ev.meanIntervalSeconds, 10);
    assert.equal(ev.stdDeviationSeconds, 0);
    assert.ok((ev.phi as number) >= 8);
    assert.ok(VerdictEvidenceSchema.shape.detector.safeParse(ev).success);
  });

  it('--phi-min-grace overrides the derived minimum', () => {
    const { det } = regular(10_000, 20, { ...PHI, phiMinGraceMs: 15_000 });
    assert.equal(det.expiryGraceMs, 15_000);
  });

  it('an irregular node is never judged later than the grace', () => {
    const det = newDetection(0);
    const t = timings();
    let probe = 0;
    for (let i = 0; i < 30; i++) updateDetection(det, (probe += i % 2 === 0 ? 2_000 : 40_000), 40, t);
    assert.equal(det.expiryGraceMs, 50_000);
  });

  it('a new renew interval (another lease duration) starts the window afresh: fixed rule again', () => {
    const { det, t } = regular(10_000, 20);
    updateDetection(det, 210_000, 20, t);
    assert.equal(det.expiryGraceMs, undefined);
    assert.equal(det.suspectAfterMs, 7_500);
  });

  it('an interval longer than the grace (down, restarted) is not learnt: the window starts afresh', () => {
    const { det, t } = regular(10_000, 20);
    updateDetection(det, 200_000 + 120_000, 40, t);
    assert.equal(det.window?.size, 0);
    assert.equal(det.expiryGraceMs, undefined);
  });

  it('a reset (controller pause) forgets the history', () => {
    const { det, t } = regular(10_000, 20);
    resetDetection(det, 500_000, t);
    assert.equal(det.window?.size, 0);
    assert.equal(det.expiryGraceMs, undefined);
    updateDetection(det, 510_000, 40, t);
    assert.equal(det.window?.size, 1, 'the gap across the pause is no sample');
  });

  it('fixed: no window, never an earlier expiry', () => {
    const { det } = regular(10_000, 50, defaultDetectionConfig);
    assert.equal(det.window, undefined);
    assert.equal(det.expiryGraceMs, undefined);
    assert.equal(det.suspectAfterMs, 15_000);
  });

  it('validation names the flag', () => {
    assert.deepEqual(validateDetectionConfig(defaultDetectionConfig), []);
    assert.match(validateDetectionConfig({ ...PHI, phiSuspectThreshold: 9 }).join(), /--phi-suspect-threshold/);
    assert.match(validateDetectionConfig({ ...PHI, phiWindow: 1 }).join(), /--phi-window/);
  });
});
