import { validateDetectionConfig, type DetectionConfig } from './detector.js';
import { validateWitnessWeighing, type WitnessWeighingConfig } from './witness-weighing.js';
import { DEFAULT_UNHEALTHY_ZONE_THRESHOLD } from './zone-state.js';

/**
 * Settings of the node lifecycle controller, with kube-controller-manager's flag names and defaults
 * (docs/node-lifecycle.md#defaults-and-flags). Durations are milliseconds; rates are nodes per second per zone.
 */
export interface NodeLifecycleConfig {
  /** `--node-monitor-period`: time between two monitor passes (counted from the end of a pass). */
  nodeMonitorPeriodMs: number;
  /** `--node-monitor-grace-period`: silence allowed to a node that has a Ready condition. */
  nodeMonitorGracePeriodMs: number;
  /** `--node-startup-grace-period`: silence allowed to a node that never posted a Ready condition. */
  nodeStartupGracePeriodMs: number;
  /** `--node-eviction-rate`: NoExecute taints per second in a Normal (or lone FullDisruption) zone. */
  nodeEvictionRate: number;
  /** `--secondary-node-eviction-rate`: the rate in a PartialDisruption zone larger than the threshold below. */
  secondaryNodeEvictionRate: number;
  /** `--large-cluster-size-threshold`: compared with the ZONE size (strictly greater gets the secondary rate). */
  largeClusterSizeThreshold: number;
  /** `--unhealthy-zone-threshold`: not-Ready fraction (with at least 3 not Ready) of a PartialDisruption zone. */
  unhealthyZoneThreshold: number;
  /** `nodeUpdateWorkerSize`: live lease checks, status writes and taint writes in flight at once in one pass. */
  nodeWorkers: number;
  /** `NodeEvictionPeriod`: how often the NoExecute tainter runs between passes. */
  tainterPeriodMs: number;
  /** Feature gate `NodeControllerLeaseCircuitBreaker` (default on). */
  leaseCircuitBreaker: boolean;
  /** Suspect, the phi detector and flap damping (detector.ts); absent: none of them, the behaviour before them. */
  detection?: DetectionConfig;
  /** Peer witnesses weighed before a silent node is convicted (docs/witnesses.md); absent: not weighed. */
  witnesses?: WitnessWeighingConfig;
}

export const defaultNodeLifecycleConfig: NodeLifecycleConfig = Object.freeze({
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 50_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: DEFAULT_UNHEALTHY_ZONE_THRESHOLD,
  nodeWorkers: 8,
  tainterPeriodMs: 100,
  leaseCircuitBreaker: true,
});

function positive(v: number): boolean {
  return Number.isFinite(v) && v > 0;
}

/** Every problem with the settings, one sentence each naming the flag; empty when the config is usable. */
export function validateNodeLifecycleConfig(c: NodeLifecycleConfig): string[] {
  const problems: string[] = [];
  if (!positive(c.nodeMonitorPeriodMs)) problems.push('--node-monitor-period must be greater than 0');
  if (!positive(c.nodeMonitorGracePeriodMs)) problems.push('--node-monitor-grace-period must be greater than 0');
  if (!positive(c.nodeStartupGracePeriodMs)) problems.push('--node-startup-grace-period must be greater than 0');
  // A grace not longer than the period would judge nodes dead between two passes that could observe them.
  if (c.nodeMonitorGracePeriodMs <= c.nodeMonitorPeriodMs) {
    problems.push('--node-monitor-grace-period must be longer than --node-monitor-period');
  }
  if (c.nodeStartupGracePeriodMs <= c.nodeMonitorPeriodMs) {
    problems.push('--node-startup-grace-period must be longer than --node-monitor-period');
  }
  if (!(Number.isFinite(c.nodeEvictionRate) && c.nodeEvictionRate >= 0)) {
    problems.push('--node-eviction-rate must be a number >= 0 (0 stops NoExecute tainting)');
  }
  if (!(Number.isFinite(c.secondaryNodeEvictionRate) && c.secondaryNodeEvictionRate >= 0)) {
    problems.push('--secondary-node-eviction-rate must be a number >= 0');
  }
  if (!(Number.isInteger(c.largeClusterSizeThreshold) && c.largeClusterSizeThreshold >= 0)) {
    problems.push('--large-cluster-size-threshold must be an integer >= 0');
  }
  if (!(c.unhealthyZoneThreshold > 0 && c.unhealthyZoneThreshold <= 1)) {
    problems.push('--unhealthy-zone-threshold must be in (0, 1]');
  }
  if (!(Number.isInteger(c.nodeWorkers) && c.nodeWorkers >= 1)) problems.push('node workers must be an integer >= 1');
  if (!positive(c.tainterPeriodMs)) problems.push('the tainter period must be greater than 0');
  if (c.detection) problems.push(...validateDetectionConfig(c.detection));
  if (c.witnesses) problems.push(...validateWitnessWeighing(c.witnesses));
  return problems;
}
