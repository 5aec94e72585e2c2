import { Command, Option } from 'commander';
import { UsageError, type CliDeps, type OutStream } from './cli-context.js';
import { addListCommands } from './list-commands.js';
import { addDeleteCommand, addDescribeCommand } from './object-commands.js';
import { addManifestCommands } from './workload-commands.js';
import { runExplainNode } from './explain-node.js';
import { runExplainZone } from './explain-zone.js';
import { runVerdicts } from './verdicts.js';
import { describeError } from './error-message.js';
import { DEFAULT_SERVER, parseTimeoutFlag, resolveGlobals, type GlobalOptions } from './global-options.js';
import { resolveResource, RESOURCE_HELP } from './resource-names.js';
import { runVersion } from './version.js';

export interface ProgramIo {
  out: OutStream;
  err: OutStream;
  env: Record<string, string | undefined>;
  clientVersion: string;
  /** Builds the deps (and its API client) once the global flags are known; the caller closes nothing. */
  connect(globals: GlobalOptions): Promise<CliDeps>;
}

const ROOT_HELP_AFTER = `
Resources: ${RESOURCE_HELP}.

Environment:
  SHEPHERD_API     API address when --server is not given (default ${DEFAULT_SERVER})
  SHEPHERD_TOKEN   bearer token when neither --token nor --token-file is given
  NO_COLOR         set to turn colour off (colour is only used on a terminal anyway)

Examples:
  sheepctl nodes                      # NAME STATUS ZONE PODS CPU MEMORY TAINTS LAST HEARTBEAT AGE
  sheepctl nodes -o wide              # + version, os/arch, lease, addresses, full taints
  sheepctl apply -f web.yaml          # create or update the objects of a manifest (YAML or JSON, --- between them)
  sheepctl get pods -A -o wide        # NAMESPACE NAME READY STATUS RESTARTS NODE AGE IP CONTROLLED BY
  sheepctl get deployments            # NAME READY UP-TO-DATE AVAILABLE AGE
  sheepctl scale deployment web --replicas 5
  sheepctl describe pod web-5d4f8-x2k9q
  sheepctl delete -f web.yaml
  sheepctl events | head -3           # the three newest events
  sheepctl events --for node/node-1 --types Warning
  sheepctl zones                      # zone states, eviction rates, controller leader
  sheepctl get nodes -w               # follow node changes until Ctrl-C
  sheepctl get node node-1 -o yaml
  sheepctl describe node node-1
  sheepctl explain node node-1        # why it is in its state, its verdicts, and what happens next
  sheepctl explain zone us-east-1b    # state, thresholds, taint queue, master disruption
  sheepctl verdicts --since 1h        # every decision of the last hour, newest last
  sheepctl verdicts --dry-run --since 1h   # how a dry-run controller differed from the live one
  SHEPHERD_API=10.0.0.5:9876 sheepctl version

Exit status: 0 on success (also after Ctrl-C ends -w), 1 on any error.`;

/** Printed whenever --token is used: the flag is convenient and leaks. */
export const TOKEN_FLAG_WARNING =
  '--token puts the secret in your shell history and in the process list (ps) of everyone on this machine: use --token-file or SHEPHERD_TOKEN instead';

/**
 * The sheepctl command tree (commander 14). Usage errors print the message and the command's usage to stderr
 * and end with exit code 1 through exitOverride (the caller catches CommanderError); command failures are
 * printed as `sheepctl: …` and recorded in `result.code`.
 */
export function buildProgram(io: ProgramIo, result: { code: number }): Command {
  const program = new Command('sheepctl');
  program
    .description(
      'sheepctl controls a shepherd cluster: list, watch and describe nodes, leases, events, zones, pods and deployments; create, apply, scale and delete workloads.',
    )
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.out.write(s),
      writeErr: (s) => void io.err.write(s),
      outputError: (s, write) => write(s.replace(/^error: /, 'sheepctl: ')),
    })
    .showHelpAfterError()
    .configureHelp({ showGlobalOptions: true })
    .option('-s, --server <address>', `API server as host:port or URL (env SHEPHERD_API, default ${DEFAULT_SERVER})`)
    .option('--token <token>', 'bearer token (env SHEPHERD_TOKEN); prefer --token-file: see the warning it prints')
    .option('--token-file <path>', 'read the bearer token from this file')
    .option('--certificate-authority <path>', 'CA bundle to verify the server certificate (https:// servers)')
    .option(
      '--request-timeout <duration>',
      'per-request timeout in Go syntax: 500ms, 5s, 1m (default 30s)',
      parseTimeoutFlag,
    )
    .addHelpText('after', ROOT_HELP_AFTER);

  const run: Runner = (cmd, fn, watch = false) => runAction(io, result, cmd, fn, watch);

  addListCommands(program, run);
  addObjectCommands(program, run, io);
  addManifestCommands(program, run);
  addVerdictCommands(program, run);
  return program;
}

/** `-o json|yaml` of the commands that print one document (explain, verdicts). */
function dataOutput(): Option {
  return new Option('-o, --output <format>', 'json or yaml: the same as data').choices(['json', 'yaml']);
}

/** `explain` and `verdicts` (docs/verdicts.md). */
function addVerdictCommands(program: Command, run: Runner): void {
  program
    .command('explain')
    .description(
      'why a node or zone is in its state: one sentence, the live picture, the verdict timeline with its evidence, and what happens next',
    )
    .argument('<resource>', 'node or zone')
    .argument('<name>', 'node or zone name')
    .addOption(dataOutput())
    .action(async (resource: string, name: string, f: { output?: 'json' | 'yaml' }, cmd: Command) => {
      await run(cmd, (deps) => {
        const kind = resolveResource(resource);
        if (kind === 'nodes') return runExplainNode(deps, name, f.output ?? 'text');
        if (kind === 'zones') return runExplainZone(deps, name, f.output ?? 'text');
        throw new UsageError('explain supports node and zone');
      });
    });

  program
    .command('verdicts')
    .description(
      "the node lifecycle controller's verdicts (every decision about a node, with its evidence), oldest first; with --dry-run how a dry-run controller differed from the live one",
    )
    .option('--node <name>', 'only the verdicts about this node')
    .option('--since <duration>', 'only verdicts of the last DURATION (Go syntax: 30m, 1h)', parseTimeoutFlag)
    .option(
      '--dry-run',
      'compare the dry-run controller with the live one: nodes marked or tainted earlier, later, or only by one',
    )
    .addOption(dataOutput())
    .action(async (f: { node?: string; since?: number; dryRun?: boolean; output?: 'json' | 'yaml' }, cmd: Command) => {
      await run(cmd, (deps) =>
        runVerdicts(deps, { node: f.node, sinceMs: f.since, dryRun: f.dryRun === true, output: f.output ?? 'table' }),
      );
    });
}

export type Runner = (
  cmd: Command,
  fn: (deps: CliDeps, server: string) => Promise<number>,
  watch?: boolean,
) => Promise<void>;

/** `describe`, `delete` (object-commands.ts) and `version`. */
function addObjectCommands(program: Command, run: Runner, io: ProgramIo): void {
  addDescribeCommand(program, run);
  addDeleteCommand(program, run);

  program
    .command('version')
    .description('print the client version and the server version and storage')
    .option('--client', 'print the client version only (no server needed)')
    .action(async (f: { client?: boolean }, cmd: Command) => {
      if (f.client) {
        io.out.write(`Client Version: ${io.clientVersion}\n`);
        return;
      }
      await run(cmd, (deps) => runVersion(deps, io.clientVersion));
    });
}

async function runAction(
  io: ProgramIo,
  result: { code: number },
  cmd: Command,
  fn: (deps: CliDeps, server: string) => Promise<number>,
  watch: boolean | undefined,
): Promise<void> {
  let server = DEFAULT_SERVER;
  let deps: CliDeps | undefined;
  try {
    const raw = cmd.optsWithGlobals();
    const globals = resolveGlobals(raw, io.env);
    if (raw['token'] !== undefined) io.err.write(`sheepctl: warning: ${TOKEN_FLAG_WARNING}\n`);
    server = globals.server;
    deps = await io.connect(globals);
    result.code = await fn(deps, server);
  } catch (err) {
    if (deps?.signal?.aborted) {
      // Ctrl-C: ending -w is success; an interrupted one-shot command is not (130, as a shell reports SIGINT).
      result.code = watch ? 0 : 130;
    } else if (err instanceof UsageError) {
      io.err.write(`sheepctl: ${err.message}\n`);
      cmd.outputHelp({ error: true });
      result.code = 1;
    } else {
      io.err.write(`sheepctl: ${describeError(err, server)}\n`);
      result.code = 1;
    }
  } finally {
    await deps?.client.close().catch(() => undefined);
  }
}
