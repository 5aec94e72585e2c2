import { Command, Option } from 'commander';
import { addAgentOptions, addClientOptions, addWitnessOptions } from './agent-flags.js';
import {
  addControllersOptions,
  addLeaderElectionOptions,
  addNodeLifecycleOptions,
  addPartitionOptions,
} from './controller-flags.js';
import { addFleetOptions } from './fleet-flags.js';
import { addServerOptions } from './server-flags.js';
import { addDetectionOptions } from './detection-flags.js';

export const MODES = ['server', 'agent', 'controller', 'fleet'] as const;
export type Mode = (typeof MODES)[number];

/**
 * Every `shepherd` flag, grouped by mode in `--help` (each group in its mode's file: server-flags.ts,
 * agent-flags.ts, controller-flags.ts, detection-flags.ts, fleet-flags.ts), with the kube-controller-manager / kubelet /
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

  addServerOptions(cmd);
  addLeaderElectionOptions(cmd);
  addClientOptions(cmd);
  addAgentOptions(cmd);
  addNodeLifecycleOptions(cmd);
  addDetectionOptions(cmd);
  addControllersOptions(cmd);
  addFleetOptions(cmd);
  // Peer witnesses (docs/witnesses.md): agent flags, then how the node lifecycle controller weighs their reports.
  addWitnessOptions(cmd);
  addPartitionOptions(cmd);
  return cmd;
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
