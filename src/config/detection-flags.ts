import { Option, type Command } from 'commander';
import {
  defaultDetectionConfig as DC,
  FAILURE_DETECTORS,
  type DetectionConfig,
  type FailureDetectorKind,
} from '../controller/node-lifecycle/detector.js';
import { formatDuration } from '../core/duration.js';
import { durationFlag, intFlag, nonNegativeNumberFlag, positiveNumberFlag } from './flag-parsers.js';

const d = (ms: number): string => formatDuration(ms);

/**
 * The node lifecycle controller's adaptive detection flags (docs/node-lifecycle.md#suspect, #phi-detector,
 * #flap-damping), named like Akka's PhiAccrualFailureDetector settings where one exists.
 */
export function addDetectionOptions(cmd: Command): void {
  cmd.optionsGroup('Failure detection (--mode server|controller), docs/node-lifecycle.md#suspect:');
  cmd
    .addOption(
      new Option(
        '--node-failure-detector <kind>',
        'fixed: Unknown after --node-monitor-grace-period of silence (Kubernetes); phi: earlier for a node whose renewals have been regular (phi accrual, bounded by --phi-min-grace and the grace)',
      )
        .choices(FAILURE_DETECTORS)
        .default(DC.failureDetector),
    )
    .addOption(
      new Option(
        '--node-suspect-after <renew-intervals>',
        'condition Suspect=True after this many renew intervals (a quarter of the lease duration) of silence; no taint, no eviction, new pods prefer other nodes; 0 = never',
      )
        .default(DC.suspectRenewIntervals)
        .argParser(nonNegativeNumberFlag),
    )
    .addOption(
      new Option('--phi-threshold <phi>', 'phi: a node whose phi reaches this is marked Unknown')
        .default(DC.phiThreshold)
        .argParser(positiveNumberFlag),
    )
    .addOption(
      new Option('--phi-suspect-threshold <phi>', 'phi: a node whose phi reaches this is Suspect')
        .default(DC.phiSuspectThreshold)
        .argParser(positiveNumberFlag),
    )
    .addOption(
      new Option(
        '--phi-min-std-deviation <duration>',
        "phi: the renewal intervals' deviation is taken as at least this",
      )
        .default(DC.phiMinStdDeviationMs, d(DC.phiMinStdDeviationMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--phi-acceptable-pause <duration>', "phi: added to the renewal intervals' mean")
        .default(DC.phiAcceptablePauseMs, d(DC.phiAcceptablePauseMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--phi-window <renewals>', 'phi: renewal intervals remembered per node')
        .default(DC.phiWindow)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--phi-min-grace <duration>',
        'phi: never mark a node Unknown before this much silence (default: 2 renew intervals + --node-monitor-period, per node)',
      ).argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--node-flap-threshold <n>',
        'a node that comes back Ready more than this many times within --node-flap-window is tainted shepherd.io/flapping:NoSchedule (never evicted for it); 0 = off',
      )
        .default(DC.flapThreshold)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--node-flap-window <duration>',
        'the flap window; the flapping taint goes once the node has stayed Ready this long',
      )
        .default(DC.flapWindowMs, d(DC.flapWindowMs))
        .argParser(durationFlag),
    );
}

/** The detection block of the controller's config from the parsed flags (validated with the rest of it). */
export function detectionConfigFrom(opts: Record<string, unknown>): DetectionConfig {
  return {
    ...DC,
    failureDetector: (opts.nodeFailureDetector as FailureDetectorKind | undefined) ?? DC.failureDetector,
    suspectRenewIntervals: (opts.nodeSuspectAfter as number | undefined) ?? DC.suspectRenewIntervals,
    phiThreshold: (opts.phiThreshold as number | undefined) ?? DC.phiThreshold,
    phiSuspectThreshold: (opts.phiSuspectThreshold as number | undefined) ?? DC.phiSuspectThreshold,
    phiMinStdDeviationMs: (opts.phiMinStdDeviation as number | undefined) ?? DC.phiMinStdDeviationMs,
    phiAcceptablePauseMs: (opts.phiAcceptablePause as number | undefined) ?? DC.phiAcceptablePauseMs,
    phiWindow: (opts.phiWindow as number | undefined) ?? DC.phiWindow,
    phiMinGraceMs: opts.phiMinGrace as number | undefined,
    flapThreshold: (opts.nodeFlapThreshold as number | undefined) ?? DC.flapThreshold,
    flapWindowMs: (opts.nodeFlapWindow as number | undefined) ?? DC.flapWindowMs,
  };
}
