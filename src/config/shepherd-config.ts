import { Command, InvalidArgumentError, Option } from 'commander';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
} from '../controller/leader-election.js';
import { CONTROLLER_NAMES, parseControllers } from '../controller/controller-names.js';
import { defaultNodeLifecycleConfig as NLC } from '../controller/node-lifecycle/config.js';
import { CRASH_LOOP_BACKOFF } from '../agent/pods/restart-policy.js';
import { addDetectionOptions } from './detection-flags.js';
import { DEFAULT_REBUILD_RATE } from '../controller/taint-eviction/taint-eviction-controller.js';
import { formatDuration } from '../core/duration.js';
import { DEFAULT_MAX_PODS, DEFAULT_TOLERATION_SECONDS } from '../core/pod.js';
import { DEFAULT_VERDICT_TTL_MS } from '../core/verdict.js';
import { DEFAULT_EVENT_LIMITS } from '../api/event-quota.js';
import { DEFAULT_MAX_AUTH_FAILURES_PER_MINUTE } from '../api/failed-auth-throttle.js';
import { DEFAULT_MAX_WATCH_UNSENT_BYTES } from '../store/store.js';
import { WITNESS_DEFAULTS } from '../agent/witness/witness-defaults.js';
import { DEFAULT_WITNESS_WEIGHING } from '../controller/node-lifecycle/witness-weighing.js';
import {
  byteSizeFlag,
  collectAddresses,
  durationFlag,
  formatBytes,
  fractionFlag,
  intFlag,
  keyValueList,
  nonNegativeNumberFlag,
  parseListen,
  positiveNumberFlag,
} from './flag-parsers.js';

export const MODES = ['server', 'agent', 'controller', 'fleet'] as const;
export type Mode = (typeof MODES)[number];

const d = (ms: number): string => formatDuration(ms);

/**
 * Every `shepherd` flag, grouped by mode in `--help`, with the kube-controller-manager / kubelet /
 * kube-apiserver names and defaults where one exists. Values are parsed here so a bad flag fails at start-up
 * with one sentence; `resolveConfig` then checks what only makes sense per mode.
 */
export function buildShepherdCommand(version: string): Command {
  const cmd = new Command('shepherd')
    .description(
      'shepherd: a node-lifecycle control plane (API server, node agent, and controllers: node lifecycle, scheduler, deployments, taint eviction, pod GC).',
    )
    .addHelpText(
      'after',
      [
        '',
        'Modes:',
        '  shepherd --mode server                      API server on SQLite (./shepherd.db) with the controllers in-process',
        '  shepherd --mode agent --api-addr HOST:PORT  register this machine and keep its lease and status fresh',
        '  shepherd --mode controller --api-addr ...   the controllers alone (server with --no-controller); --controllers picks them',
        '  shepherd --mode fleet --nodes N ...         simulate N agents (load tests and failure drills)',
        '',
        'Durations use Go syntax: 100ms, 5s, 1m30s. Signals: the first SIGTERM/SIGINT shuts down gracefully, a second exits at once.',
      ].join('\n'),
    )
    .version(version, '--version', 'print the version and exit')
    .helpOption('-h, --help', 'show this help')
    .allowExcessArguments(false)
    .addOption(new Option('--mode <mode>', 'what this process runs (see Modes below)').choices(MODES).default('server'))
    .addOption(
      new Option('--log-level <level>', 'least severe log lines to print')
        .choices(['debug', 'info', 'warn', 'error'])
        .default('info'),
    )
    .addOption(
      new Option('--log-format <format>', 'log lines as readable text or as JSON objects (one a line)')
        .choices(['json', 'text'])
        .default('text'),
    )
    .addOption(
      new Option(
        '--health-probe-bind-address <host:port>',
        'agent/controller/fleet: serve /healthz, /readyz and /metrics here (off by default)',
      ),
    );

  cmd.optionsGroup('Server (--mode server):');
  cmd
    .addOption(
      new Option('--listen <host:port>', 'address the API listens on')
        .default('127.0.0.1:9876')
        .argParser((v) => (parseListen(v), v)),
    )
    .addOption(new Option('--db <path>', 'SQLite database file (created if missing)').default('./shepherd.db'))
    .addOption(
      new Option('--event-ttl <duration>', 'how long Events are kept after their last occurrence')
        .default(3_600_000, d(3_600_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--verdict-ttl <duration>', "how long the node lifecycle controller's Verdicts are kept")
        .default(DEFAULT_VERDICT_TTL_MS, d(DEFAULT_VERDICT_TTL_MS))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--default-not-ready-toleration-seconds <seconds>',
        'tolerationSeconds of the node.kubernetes.io/not-ready:NoExecute toleration every pod gets unless it has one',
      )
        .default(DEFAULT_TOLERATION_SECONDS)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--default-unreachable-toleration-seconds <seconds>',
        'tolerationSeconds of the node.kubernetes.io/unreachable:NoExecute toleration every pod gets unless it has one',
      )
        .default(DEFAULT_TOLERATION_SECONDS)
        .argParser(intFlag),
    )
    .addOption(
      new Option('--watch-history <duration>', 'change history kept for watch resumes (at least)')
        .default(300_000, d(300_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--max-watch-unsent-bytes <size>',
        'a watch whose changes not yet sent to its client pass this size is ended with a 429 ERROR; the client resumes from its last resourceVersion',
      )
        .default(DEFAULT_MAX_WATCH_UNSENT_BYTES, formatBytes(DEFAULT_MAX_WATCH_UNSENT_BYTES))
        .argParser(byteSizeFlag),
    )
    .addOption(
      new Option('--no-controller', 'do not run the controllers in this process (run --mode controller instead)'),
    )
    .addOption(
      new Option(
        '--ui [bool]',
        'serve the web dashboard at /ui/ (and redirect / there); --ui=false turns it off (docs/dashboard.md)',
      )
        .argParser(booleanFlag)
        .default(true)
        .preset('true'),
    )
    .addOption(
      new Option(
        '--etcd-servers <urls>',
        'store everything in etcd instead of SQLite (comma-separated http://host:port list)',
      ).argParser(collectAddresses),
    )
    .addOption(new Option('--etcd-prefix <prefix>', 'key prefix for shepherd objects in etcd').default('/shepherd'));

  cmd.optionsGroup('Server security (--mode server), kube-apiserver names where one exists:');
  cmd
    .addOption(
      new Option(
        '--token-auth-file <file>',
        'static bearer tokens, one `token,user,uid,"group1,group2"` a line; groups system:masters, system:viewers, system:nodes (user system:node:<name>). Without it: no authentication, loopback only',
      ),
    )
    .addOption(
      new Option(
        '--allow-unauthenticated',
        'allow listening on a non-loopback address without --token-auth-file (anyone who reaches it can write)',
      ),
    )
    .addOption(
      new Option('--tls-cert-file <file>', 'PEM certificate (chain) to serve https with; needs --tls-private-key-file'),
    )
    .addOption(new Option('--tls-private-key-file <file>', 'PEM private key of --tls-cert-file'))
    .addOption(
      new Option(
        '--request-timeout <duration>',
        'a client must send its whole request (headers and body) within this; watch streams are not cut by it',
      )
        .default(60_000, d(60_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--request-header-timeout <duration>', 'a client must send its request headers within this')
        .default(10_000, d(10_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--rate-limit-node <qps/burst>',
        'with --token-auth-file: requests per second (and burst) per node identity',
      )
        .default({ qps: 20, burst: 40 }, '20/40')
        .argParser(rateFlag),
    )
    .addOption(
      new Option(
        '--rate-limit-user-reads <qps/burst>',
        'with --token-auth-file: reads per second (and burst) per other user',
      )
        .default({ qps: 50, burst: 100 }, '50/100')
        .argParser(rateFlag),
    )
    .addOption(
      new Option(
        '--rate-limit-user-writes <qps/burst>',
        'with --token-auth-file: writes per second (and burst) per other user',
      )
        .default({ qps: 10, burst: 20 }, '10/20')
        .argParser(rateFlag),
    )
    .addOption(
      new Option(
        '--rate-limit-masters <qps/burst>',
        'with --token-auth-file: requests per second per system:masters user (the controller); 0 = unlimited',
      )
        .default({ qps: 0, burst: 0 }, '0 (unlimited)')
        .argParser(rateFlag),
    )
    .addOption(
      new Option(
        '--max-watches-per-user <n>',
        'with --token-auth-file: open watch streams per user (429 beyond); 0 = unlimited',
      )
        .default(50)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--events-per-minute <n>',
        'with --token-auth-file: Events one identity may create per minute (system:masters: unlimited); 0 = unlimited',
      )
        .default(DEFAULT_EVENT_LIMITS.perMinute)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--max-event-bytes-per-node <size>',
        'with --token-auth-file: a node whose Events hold this much may create no more until they expire; 0 = unlimited',
      )
        .default(DEFAULT_EVENT_LIMITS.maxBytesPerNode, formatBytes(DEFAULT_EVENT_LIMITS.maxBytesPerNode))
        .argParser(byteSizeFlag),
    )
    .addOption(
      new Option(
        '--max-auth-failures-per-minute <n>',
        'with --token-auth-file: requests with a bad token one source address may make per minute before all its requests get 429; 0 = unlimited',
      )
        .default(DEFAULT_MAX_AUTH_FAILURES_PER_MINUTE)
        .argParser(intFlag),
    );

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
        .default(DEFAULT_LEASE_DURATION_MS, d(DEFAULT_LEASE_DURATION_MS))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--leader-elect-renew-deadline <duration>', 'the leader steps down if it cannot renew for this long')
        .default(DEFAULT_RENEW_DEADLINE_MS, d(DEFAULT_RENEW_DEADLINE_MS))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--leader-elect-retry-period <duration>', 'between attempts to acquire or renew leadership')
        .default(DEFAULT_RETRY_PERIOD_MS, d(DEFAULT_RETRY_PERIOD_MS))
        .argParser(durationFlag),
    );

  cmd.optionsGroup('Clients (--mode agent|controller|fleet):');
  cmd
    .addOption(
      new Option(
        '--api-addr <address>',
        'API server host:port or URL; repeat or comma-separate to fail over between servers',
      )
        .env('SHEPHERD_API')
        .argParser(collectAddresses),
    )
    .addOption(new Option('--token-file <path>', 'file holding the bearer token to send'))
    .addOption(new Option('--certificate-authority <path>', 'CA bundle to verify the server certificate (https)'));

  cmd.optionsGroup('Agent (--mode agent):');
  cmd
    .addOption(new Option('--node-name <name>', 'node name (default: the host name, lowercased)'))
    .addOption(new Option('--zone <zone>', 'value of the topology.kubernetes.io/zone label'))
    .addOption(new Option('--region <region>', 'value of the topology.kubernetes.io/region label'))
    .addOption(new Option('--labels <k=v,...>', 'extra node labels').argParser(keyValueList).default({}, 'none'))
    .addOption(
      new Option('--lease-duration <duration>', 'Lease duration; renewed every quarter of it')
        .default(40_000, d(40_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--node-status-update-frequency <duration>', 'how often node status is computed')
        .default(10_000, d(10_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--node-status-report-frequency <duration>', 'post unchanged status at least this often')
        .default(300_000, d(300_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--memory-pressure-threshold <fraction>',
        'MemoryPressure=True when available memory falls below this fraction',
      )
        .default(0.05)
        .argParser(fractionFlag),
    )
    .addOption(
      new Option('--disk-pressure-threshold <fraction>', 'DiskPressure=True when free disk falls below this fraction')
        .default(0.1)
        .argParser(fractionFlag),
    )
    .addOption(
      new Option('--max-pods <n>', 'pods this node takes (status.capacity.pods)')
        .default(DEFAULT_MAX_PODS)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--cpu-capacity <cpus>',
        'CPUs this node offers pods (status.capacity.cpu) (default: the CPUs available to the agent)',
      ).argParser(positiveNumberFlag),
    )
    .addOption(
      new Option(
        '--allow-process-pods',
        'run pod containers that have a command as child processes of the agent, as its user (a privilege: anyone who may create pods runs commands here); without it such pods fail with reason ProcessPodsDisabled (docs/pods.md)',
      ),
    )
    .addOption(
      new Option(
        '--pod-log-dir <dir>',
        "process pods' output (<namespace>_<name>_<uid>.log) and the agent's process table; created 0700 (default: <tmpdir>/shepherd-<node-name>/pod-logs)",
      ),
    )
    .addOption(
      new Option('--crash-loop-backoff <duration>', 'first wait before a process pod container is restarted; doubles')
        .default(CRASH_LOOP_BACKOFF.initialMs, d(CRASH_LOOP_BACKOFF.initialMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--crash-loop-backoff-max <duration>', 'longest wait before a container is restarted')
        .default(CRASH_LOOP_BACKOFF.maxMs, d(CRASH_LOOP_BACKOFF.maxMs))
        .argParser(durationFlag),
    );

  cmd.optionsGroup('Node lifecycle controller (--mode server|controller), kube-controller-manager names:');
  cmd
    .addOption(
      new Option('--node-monitor-period <duration>', 'time between node health passes')
        .default(NLC.nodeMonitorPeriodMs, d(NLC.nodeMonitorPeriodMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--node-monitor-grace-period <duration>',
        'silence after which a node with a Ready condition is marked Unknown',
      )
        .default(NLC.nodeMonitorGracePeriodMs, d(NLC.nodeMonitorGracePeriodMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--node-startup-grace-period <duration>', 'grace for a node that never posted a Ready condition')
        .default(NLC.nodeStartupGracePeriodMs, d(NLC.nodeStartupGracePeriodMs))
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

  addDetectionOptions(cmd);

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

  cmd.optionsGroup('Fleet simulator (--mode fleet):');
  cmd
    .addOption(new Option('--nodes <n>', 'simulated agents').default(100).argParser(intFlag))
    .addOption(new Option('--zones <n>', 'zones the simulated nodes are spread over').default(2).argParser(intFlag))
    .addOption(
      new Option(
        '--simulator <kind>',
        'agent: a real Agent per node (behaviour tests); light: registration and renewals only, from one timer ' +
          'wheel over pipelined connections (capacity benchmarks; docs/fleet.md#light-mode)',
      )
        .choices(['agent', 'light'])
        .default('agent'),
    )
    .addOption(
      new Option(
        '--scenario <name>',
        'play a scripted story instead of free-running (none by default): rack-failure',
      ).choices(['rack-failure']),
    )
    .addOption(new Option('--node-prefix <prefix>', 'simulated node names are <prefix>-<zone>-<i>').default('fleet'))
    .addOption(
      new Option('--start-rate <agents/s>', 'agent starts (registrations, restarts) per second')
        .default(500)
        .argParser(positiveNumberFlag),
    )
    .addOption(
      new Option('--report-interval <duration>', 'time between live report lines')
        .default(5_000, d(5_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--duration <duration>',
        'run this long, print the totals and exit (default: until signalled)',
      ).argParser(durationFlag),
    )
    .addOption(
      new Option('--stop <zone:fraction>', 'stop this share of a zone at start; repeatable (default: none)').argParser(
        (v: string, p: string[] | undefined) => [...(p ?? []), v],
      ),
    )
    .addOption(
      new Option('--step-timeout <duration>', 'with --scenario: the longest wait for one expected event')
        .default(120_000, d(120_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--scenario-pods <n>',
        "with --scenario rack-failure: replicas of the story's Deployment of placeholder pods (0: nodes only)",
      )
        .default(240)
        .argParser(intFlag),
    );

  // Peer witnesses (docs/witnesses.md): agent flags, then how the node lifecycle controller weighs their reports.
  cmd.optionsGroup('Witnesses (--mode agent), docs/witnesses.md:');
  cmd
    .addOption(
      new Option(
        '--witness-bind-address <host:port>',
        'answer witness probes of peer agents here and probe the peers this node witnesses (off by default; port 0 picks one)',
      ).argParser((v) => (parseListen(v), v)),
    )
    .addOption(
      new Option('--witness-count <n>', 'witnesses per node (each agent probes about this many peers)')
        .default(WITNESS_DEFAULTS.count)
        .argParser(intFlag),
    )
    .addOption(
      new Option('--witness-probe-interval <duration>', 'time between two probes of the same peer')
        .default(WITNESS_DEFAULTS.intervalMs, d(WITNESS_DEFAULTS.intervalMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--witness-probe-timeout <duration>', 'a probe not answered within this failed')
        .default(WITNESS_DEFAULTS.timeoutMs, d(WITNESS_DEFAULTS.timeoutMs))
        .argParser(durationFlag),
    );

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
        .default(DEFAULT_WITNESS_WEIGHING.maxHoldMs, d(DEFAULT_WITNESS_WEIGHING.maxHoldMs))
        .argParser(durationFlag),
    );
  return cmd;
}

/**
 * `true` or `false`, for flags written `--flag=false` (kube-apiserver style). Their preset is the string 'true':
 * commander runs the preset of a bare `--flag` through this parser too.
 */
export function booleanFlag(value: string): boolean {
  if (value !== 'true' && value !== 'false') throw new InvalidArgumentError('must be true or false');
  return value === 'true';
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

/** `qps/burst` (`20/40`), or `qps` alone (burst = 2 × qps); `0` means unlimited. */
export function rateFlag(value: string): { qps: number; burst: number } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(\d+)\s*)?$/.exec(value);
  if (!m) throw new InvalidArgumentError('must be qps/burst, e.g. 20/40 (or 0 for unlimited)');
  const qps = Number(m[1]);
  const burst = m[2] === undefined ? Math.max(1, Math.ceil(qps * 2)) : Number(m[2]);
  if (qps > 0 && burst < 1) throw new InvalidArgumentError('burst must be at least 1 when qps is not 0');
  return { qps, burst };
}

export interface FeatureGates {
  NodeControllerLeaseCircuitBreaker: boolean;
}

export function parseFeatureGates(raw: Record<string, string>): FeatureGates {
  const gates: FeatureGates = { NodeControllerLeaseCircuitBreaker: true };
  for (const [k, v] of Object.entries(raw)) {
    if (k !== 'NodeControllerLeaseCircuitBreaker')
      throw new Error(`unknown feature gate "${k}": known gates are NodeControllerLeaseCircuitBreaker`);
    if (v !== 'true' && v !== 'false') throw new Error(`feature gate ${k} must be true or false, not "${v}"`);
    gates[k] = v === 'true';
  }
  return gates;
}
