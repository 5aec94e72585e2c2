import { type Command, InvalidArgumentError, Option } from 'commander';
import { CONTROLLER_NAMES, parseControllers } from '../controller/controller-names.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
} from '../controller/leader-election.js';
import { DEFAULT_WITNESS_WEIGHING } from '../controller/node-lifecycle/witness-weighing.js';
import { DEFAULT_REBUILD_RATE } from '../controller/taint-eviction/taint-eviction-controller.js';
import { formatDuration } from '../core/duration.js';
import {
  booleanFlag,
  durationFlag,
  fractionFlag,
  intFlag,
  keyValueList,
  nonNegativeNumberFlag,
  positiveNumberFlag,
} from './flag-parsers.js';
import { defaultNodeLifecycleConfig as NLC } from '../controller/node-lifecycle/config.js';

/** Leader election among servers or controllers (kube-controller-manager names). */
export function addLeaderElectionOptions(cmd: Command): void {
  cmd.optionsGroup('Leader election (--mode server|controller), kube-controller-manager names:');
  cmd
    .addOption(
      new Option(
        '--leader-elect [bool]',
        'elect one node lifecycle controller among several (default: true with --etcd-servers, else false)',
      )
        .argParser(booleanFlag)
        .preset('true'),
    )
    .addOption(
      new Option('--leader-elect-lease-duration <duration>', 'how long followers wait after the leader stops renewing')
        .default(DEFAULT_LEASE_DURATION_MS, formatDuration(DEFAULT_LEASE_DURATION_MS))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--leader-elect-renew-deadline <duration>', 'the leader steps down if it cannot renew for this long')
        .default(DEFAULT_RENEW_DEADLINE_MS, formatDuration(DEFAULT_RENEW_DEADLINE_MS))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--leader-elect-retry-period <duration>', 'between attempts to acquire or renew leadership')
        .default(DEFAULT_RETRY_PERIOD_MS, formatDuration(DEFAULT_RETRY_PERIOD_MS))
        .argParser(durationFlag),
    );
}

/** The node lifecycle controller (kube-controller-manager names where one exists). */
export function addNodeLifecycleOptions(cmd: Command): void {
  cmd.optionsGroup('Node lifecycle controller (--mode server|controller), kube-controller-manager names:');
  cmd
    .addOption(
      new Option('--node-monitor-period <duration>', 'time between node health passes')
        .default(NLC.nodeMonitorPeriodMs, formatDuration(NLC.nodeMonitorPeriodMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--node-monitor-grace-period <duration>',
        'silence after which a node with a Ready condition is marked Unknown',
      )
        .default(NLC.nodeMonitorGracePeriodMs, formatDuration(NLC.nodeMonitorGracePeriodMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--node-startup-grace-period <duration>', 'grace for a node that never posted a Ready condition')
        .default(NLC.nodeStartupGracePeriodMs, formatDuration(NLC.nodeStartupGracePeriodMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--node-eviction-rate <nodes/s>', 'NoExecute taints per second per healthy zone')
        .default(NLC.nodeEvictionRate)
        .argParser(nonNegativeNumberFlag),
    )
    .addOption(
      new Option(
        '--secondary-node-eviction-rate <nodes/s>',
        'taint rate in a partially disrupted zone larger than --large-cluster-size-threshold',
      )
        .default(NLC.secondaryNodeEvictionRate)
        .argParser(nonNegativeNumberFlag),
    )
    .addOption(
      new Option(
        '--large-cluster-size-threshold <nodes>',
        'zones up to this size stop tainting when partially disrupted',
      )
        .default(NLC.largeClusterSizeThreshold)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--unhealthy-zone-threshold <fraction>',
        'not-ready fraction (and at least 3 nodes) that makes a zone PartialDisruption',
      )
        .default(NLC.unhealthyZoneThreshold)
        .argParser(fractionFlag),
    )
    .addOption(
      new Option('--feature-gates <Gate=bool,...>', 'feature gates: NodeControllerLeaseCircuitBreaker (default true)')
        .argParser(keyValueList)
        .default({}, 'none'),
    )
    .addOption(
      new Option(
        '--dry-run',
        '--mode controller: a dry-run controller beside the live one: the same engine and flags, but it writes nothing except Verdicts (dryRun: true) and needs no leadership (docs/verdicts.md)',
      ),
    )
    .addOption(
      new Option(
        '--controller-dry-run',
        '--mode server: the in-process controller runs as a dry-run (writes nothing but Verdicts); the live controller then runs elsewhere (--mode controller)',
      ),
    );
}

/** Which controllers run, and the taint-eviction controller's pacing. */
export function addControllersOptions(cmd: Command): void {
  cmd.optionsGroup('Controllers (--mode server|controller), kube-controller-manager names:');
  cmd
    .addOption(
      new Option(
        '--controllers <names>',
        `controllers to run, comma-separated: * for all, a name to turn one on, -name to turn one off (e.g. *,-pod-gc); names: ${CONTROLLER_NAMES.join(', ')}`,
      )
        .argParser(controllersFlag)
        .default(DEFAULT_CONTROLLERS, '*'),
    )
    .addOption(
      new Option(
        '--taint-eviction-rebuild-rate <pods/s>',
        'after a restart or failover, pod evictions already overdue are released at this rate, not all at once',
      )
        .default(DEFAULT_REBUILD_RATE)
        .argParser(positiveNumberFlag),
    );
}

/** How the node lifecycle controller weighs witness reports (docs/witnesses.md). */
export function addPartitionOptions(cmd: Command): void {
  cmd.optionsGroup('Partition-aware verdicts (--mode server|controller), docs/witnesses.md:');
  cmd
    .addOption(
      new Option(
        '--witness-quorum <n>',
        'witnesses that must still reach a silent node for it to count as partitioned, not dead; 0 ignores witnesses',
      )
        .default(DEFAULT_WITNESS_WEIGHING.quorum)
        .argParser(intFlag),
    )
    .addOption(
      new Option('--witness-min-zones <n>', 'zones those witnesses must come from')
        .default(DEFAULT_WITNESS_WEIGHING.minZones)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--node-partition-policy <policy>',
        'a partitioned node: hold (keep its pods, NoSchedule only) or evict (as a dead node)',
      )
        .choices(['hold', 'evict'])
        .default(DEFAULT_WITNESS_WEIGHING.policy),
    )
    .addOption(
      new Option('--node-partition-max-hold <duration>', 'after this long partitioned a node is treated as dead')
        .default(DEFAULT_WITNESS_WEIGHING.maxHoldMs, formatDuration(DEFAULT_WITNESS_WEIGHING.maxHoldMs))
        .argParser(durationFlag),
    );
}

const DEFAULT_CONTROLLERS: string[] = ['*'];

/** `--controllers`: a comma-separated list, checked at once (unknown names and an empty set are refused). */
export function controllersFlag(value: string, previous: string[] | undefined): string[] {
  // commander hands the default in as `previous` on the first use: a given list replaces it.
  const items = [...(previous === undefined || previous === DEFAULT_CONTROLLERS ? [] : previous), ...value.split(',')];
  try {
    parseControllers(items);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  return items.map((i) => i.trim()).filter(Boolean);
}
