import { type Command, Option } from 'commander';
import { CRASH_LOOP_BACKOFF } from '../agent/pods/restart-policy.js';
import { WITNESS_DEFAULTS } from '../agent/witness/witness-defaults.js';
import { formatDuration } from '../core/duration.js';
import { DEFAULT_MAX_PODS } from '../core/pod.js';
import {
  collectAddresses,
  durationFlag,
  fractionFlag,
  intFlag,
  keyValueList,
  parseListen,
  positiveNumberFlag,
} from './flag-parsers.js';

/** How agents, controllers and fleets reach the API. */
export function addClientOptions(cmd: Command): void {
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
}

/** One machine's agent (`--mode agent`): node identity, reports, pods. */
export function addAgentOptions(cmd: Command): void {
  cmd.optionsGroup('Agent (--mode agent):');
  cmd
    .addOption(new Option('--node-name <name>', 'node name (default: the host name, lowercased)'))
    .addOption(new Option('--zone <zone>', 'value of the topology.kubernetes.io/zone label'))
    .addOption(new Option('--region <region>', 'value of the topology.kubernetes.io/region label'))
    .addOption(new Option('--labels <k=v,...>', 'extra node labels').argParser(keyValueList).default({}, 'none'))
    .addOption(
      new Option('--lease-duration <duration>', 'Lease duration; renewed every quarter of it')
        .default(40_000, formatDuration(40_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--node-status-update-frequency <duration>', 'how often node status is computed')
        .default(10_000, formatDuration(10_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--node-status-report-frequency <duration>', 'post unchanged status at least this often')
        .default(300_000, formatDuration(300_000))
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
        .default(CRASH_LOOP_BACKOFF.initialMs, formatDuration(CRASH_LOOP_BACKOFF.initialMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--crash-loop-backoff-max <duration>', 'longest wait before a container is restarted')
        .default(CRASH_LOOP_BACKOFF.maxMs, formatDuration(CRASH_LOOP_BACKOFF.maxMs))
        .argParser(durationFlag),
    );
}

/** Peer witnesses, agent side (docs/witnesses.md). */
export function addWitnessOptions(cmd: Command): void {
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
        .default(WITNESS_DEFAULTS.intervalMs, formatDuration(WITNESS_DEFAULTS.intervalMs))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--witness-probe-timeout <duration>', 'a probe not answered within this failed')
        .default(WITNESS_DEFAULTS.timeoutMs, formatDuration(WITNESS_DEFAULTS.timeoutMs))
        .argParser(durationFlag),
    );
}
