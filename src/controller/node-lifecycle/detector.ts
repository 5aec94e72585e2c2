import type { VerdictEvidence } from '../../core/verdict.js';
import { IntervalWindow, phi, phiDeviations } from './phi-detector.js';

export const FAILURE_DETECTORS = ['fixed', 'phi'] as const;
export type FailureDetectorKind = (typeof FAILURE_DETECTORS)[number];

/**
 * The adaptive part of node failure detection (docs/node-lifecycle.md#suspect, #phi-detector, #flap-damping).
 * Absent from a NodeLifecycleConfig, the controller behaves exactly as before these existed; `shepherd` always
 * passes one (its flags' defaults turn Suspect and flap damping on and keep the fixed detector).
 */
export interface DetectionConfig {
  /** `--node-failure-detector`: `fixed` is the grace-period rule alone; `phi` may mark a regular node earlier. */
  failureDetector: FailureDetectorKind;
  /** `--node-suspect-after`: Suspect after this many renew intervals of silence (fixed rule, and phi's fallback). */
  suspectRenewIntervals: number;
  /** `--phi-threshold`: phi at which a node is marked Unknown. */
  phiThreshold: number;
  /** `--phi-suspect-threshold`: phi at which a node becomes Suspect. */
  phiSuspectThreshold: number;
  /** `--phi-min-std-deviation`: the deviation used when the window's is smaller. */
  phiMinStdDeviationMs: number;
  /** `--phi-acceptable-pause`: added to the window's mean. */
  phiAcceptablePauseMs: number;
  /** `--phi-window`: renewal intervals kept per node. */
  phiWindow: number;
  /** `--phi-min-grace`: never Unknown earlier; undefined: 2 renew intervals + one monitor period, per node. */
  phiMinGraceMs: number | undefined;
  /** Intervals a node must have shown before phi judges it (fewer: the fixed rule). */
  phiMinSamples: number;
  /** `--node-flap-threshold`: returns to Ready within the window beyond which a node is flapping; 0 = off. */
  flapThreshold: number;
  /** `--node-flap-window`. */
  flapWindowMs: number;
}

export const defaultDetectionConfig: DetectionConfig = Object.freeze({
  failureDetector: 'fixed',
  suspectRenewIntervals: 1.5,
  phiThreshold: 8,
  phiSuspectThreshold: 3,
  phiMinStdDeviationMs: 500,
  phiAcceptablePauseMs: 0,
  phiWindow: 100,
  phiMinGraceMs: undefined,
  phiMinSamples: 10,
  flapThreshold: 3,
  flapWindowMs: 600_000,
});

/** Every problem with the detection settings, one sentence each naming the flag. */
export function validateDetectionConfig(c: DetectionConfig): string[] {
  const problems: string[] = [];
  if (!(c.suspectRenewIntervals >= 0)) problems.push('--node-suspect-after must be 0 (never) or more');
  if (!(c.phiThreshold > 0)) problems.push('--phi-threshold must be greater than 0');
  if (!(c.phiSuspectThreshold > 0 && c.phiSuspectThreshold <= c.phiThreshold))
    problems.push('--phi-suspect-threshold must be greater than 0 and at most --phi-threshold');
  if (!(c.phiMinStdDeviationMs > 0)) problems.push('--phi-min-std-deviation must be greater than 0');
  if (!(c.phiAcceptablePauseMs >= 0)) problems.push('--phi-acceptable-pause must be 0 or more');
  if (!(Number.isInteger(c.phiWindow) && c.phiWindow >= 2 && c.phiWindow <= 10_000))
    problems.push('--phi-window must be an integer from 2 to 10000');
  if (c.phiMinGraceMs !== undefined && !(c.phiMinGraceMs > 0)) problems.push('--phi-min-grace must be greater than 0');
  if (!(Number.isInteger(c.flapThreshold) && c.flapThreshold >= 0))
    problems.push('--node-flap-threshold must be an integer >= 0 (0 turns flap damping off)');
  if (!(c.flapWindowMs > 0)) problems.push('--node-flap-window must be greater than 0');
  return problems;
}

/**
 * The agent renews every quarter of its lease's duration (kubelet nodeLeaseRenewIntervalFraction; the same ratio
 * as `leaseRenewIntervalTooLong` in node-health.ts): the controller learns a node's interval from its Lease.
 */
export function renewIntervalOf(leaseDurationSeconds: number | undefined): number | undefined {
  return leaseDurationSeconds !== undefined && leaseDurationSeconds > 0 ? leaseDurationSeconds * 250 : undefined;
}

/**
 * What the controller learnt about one node's heartbeats, kept in its health record. `expiryGraceMs` is the
 * silence after which it is marked Unknown when phi judges it (undefined: the fixed grace), `suspectAfterMs` the
 * silence after which it is Suspect (undefined: never, its renew interval is unknown).
 */
export interface NodeDetection {
  lastProbe: number;
  renewIntervalMs: number | undefined;
  window: IntervalWindow | undefined;
  expiryGraceMs: number | undefined;
  suspectAfterMs: number | undefined;
  /** The window's statistics when phi judges the node; undefined when the fixed rule does. */
  phi: { meanMs: number; stdDeviationMs: number } | undefined;
  /**
   * A heartbeat was observed since this record began (or was reset): until then a Suspect left by an earlier
   * controller is not lifted, since a fresh grace is no evidence of life.
   */
  renewed: boolean;
  /** The node copy last read for its Suspect condition and flapping taint, and what it said. */
  seenNode: object | undefined;
  seenSuspect: boolean;
  seenFlapping: boolean;
}

export function newDetection(probe: number): NodeDetection {
  return {
    lastProbe: probe,
    renewIntervalMs: undefined,
    window: undefined,
    expiryGraceMs: undefined,
    suspectAfterMs: undefined,
    phi: undefined,
    renewed: false,
    seenNode: undefined,
    seenSuspect: false,
    seenFlapping: false,
  };
}

/** The settings `updateDetection` reads: the detection block, the controller's own timing, phi's deviations. */
export interface DetectionTimings {
  detection: DetectionConfig;
  nodeMonitorPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  /** `phiDeviations` of the threshold and of the suspect threshold, computed once. */
  expireDeviations: number;
  suspectDeviations: number;
}

export function detectionTimings(
  detection: DetectionConfig,
  nodeMonitorPeriodMs: number,
  nodeMonitorGracePeriodMs: number,
): DetectionTimings {
  return {
    detection,
    nodeMonitorPeriodMs,
    nodeMonitorGracePeriodMs,
    expireDeviations: phiDeviations(detection.phiThreshold),
    suspectDeviations: phiDeviations(detection.phiSuspectThreshold),
  };
}

/**
 * Learns from one pass's committed record: a heartbeat observed since the last pass (a new probe) adds its interval
 * to the window; a new renew interval, or an interval longer than the grace (the node was down or restarted),
 * starts the window afresh (docs/node-lifecycle.md#phi-bounds). Then recomputes the two silences.
 */
export function updateDetection(
  det: NodeDetection,
  probe: number,
  leaseDurationSeconds: number | undefined,
  t: DetectionTimings,
): void {
  const cfg = t.detection;
  const renew = renewIntervalOf(leaseDurationSeconds);
  const phiOn = cfg.failureDetector === 'phi';
  if (phiOn && det.window === undefined) det.window = new IntervalWindow(cfg.phiWindow);
  const changedInterval = renew !== det.renewIntervalMs;
  det.renewIntervalMs = renew;
  if (probe !== det.lastProbe) {
    const interval = probe - det.lastProbe;
    det.lastProbe = probe;
    det.renewed = true;
    if (det.window && interval > 0) {
      if (interval > t.nodeMonitorGracePeriodMs) det.window.clear();
      else det.window.add(interval);
    }
  } else if (!changedInterval && det.suspectAfterMs !== undefined) return;
  if (changedInterval) det.window?.clear();
  recompute(det, t);
}

/** Forgets the heartbeat history (a controller pause or restart: docs/node-lifecycle.md#phi-bounds). */
export function resetDetection(det: NodeDetection, probe: number, t: DetectionTimings): void {
  det.lastProbe = probe;
  det.renewed = false;
  det.window?.clear();
  recompute(det, t);
}

function recompute(det: NodeDetection, t: DetectionTimings): void {
  const cfg = t.detection;
  const grace = t.nodeMonitorGracePeriodMs;
  const renew = det.renewIntervalMs;
  const off = renew === undefined || cfg.suspectRenewIntervals === 0;
  const fixedSuspect = off ? undefined : Math.min(grace, renew * cfg.suspectRenewIntervals);
  const w = det.window;
  if (cfg.failureDetector !== 'phi' || w === undefined || renew === undefined || w.size < cfg.phiMinSamples) {
    det.expiryGraceMs = undefined;
    det.suspectAfterMs = fixedSuspect;
    det.phi = undefined;
    return;
  }
  const meanMs = w.mean();
  const stdDeviationMs = w.stdDeviation();
  const mean = meanMs + cfg.phiAcceptablePauseMs;
  const sd = Math.max(stdDeviationMs, cfg.phiMinStdDeviationMs);
  // Bounded on both sides (docs/node-lifecycle.md#phi-bounds): never before the minimum grace, never after the grace.
  const minGrace = Math.min(grace, cfg.phiMinGraceMs ?? 2 * renew + t.nodeMonitorPeriodMs);
  const expiry = Math.min(grace, Math.max(minGrace, mean + t.expireDeviations * sd));
  det.expiryGraceMs = expiry;
  det.suspectAfterMs = off ? undefined : Math.min(expiry, Math.max(renew, mean + t.suspectDeviations * sd));
  det.phi = { meanMs, stdDeviationMs };
}

const secs = (ms: number): number => Math.round(ms) / 1000;

/** `evidence.detector` of a decision about a node silent for `silentMs` (docs/verdicts.md#the-record). */
export function detectorEvidence(
  det: NodeDetection | undefined,
  silentMs: number,
  cfg: DetectionConfig | undefined,
): NonNullable<VerdictEvidence['detector']> {
  const samples = det?.window?.size;
  if (cfg === undefined || det?.phi === undefined)
    return { kind: 'fixed', ...(samples === undefined ? {} : { samples }) };
  const mean = det.phi.meanMs + cfg.phiAcceptablePauseMs;
  const sd = Math.max(det.phi.stdDeviationMs, cfg.phiMinStdDeviationMs);
  return {
    kind: 'phi',
    phi: Math.round(phi(silentMs, mean, sd) * 100) / 100,
    threshold: cfg.phiThreshold,
    meanIntervalSeconds: secs(det.phi.meanMs),
    stdDeviationSeconds: secs(det.phi.stdDeviationMs),
    ...(samples === undefined ? {} : { samples }),
    ...(det.expiryGraceMs === undefined ? {} : { expiresAfterSeconds: secs(det.expiryGraceMs) }),
    ...(det.suspectAfterMs === undefined ? {} : { suspectAfterSeconds: secs(det.suspectAfterMs) }),
  };
}
