import { type Command, Option } from 'commander';
import { EventTypeSchema } from '../core/event.js';
import { KIND_OF } from '../core/kinds.js';
import { UsageError } from './cli-context.js';
import { runGet, type GetOptions } from './get.js';
import { NAMESPACE_HELP } from './object-commands.js';
import { OUTPUT_FORMATS, parseOutputFormat } from './output.js';
import type { Runner } from './program.js';
import { parseTypedName, resolveResource, RESOURCE_HELP } from './resource-names.js';

/*
 * The listing commands of sheepctl: `get` (kubectl get's shape: a table, one object by NAME, -o json|yaml|wide|name,
 * selectors, -w), its shortcuts `nodes`, `zones`, `leases`, `pods`, `deployments`, and `events` with kubectl events'
 * --for and --types. They share one set of flags and all run get.ts.
 */

interface GetFlags {
  output?: string;
  selector?: string;
  fieldSelector?: string;
  watch?: boolean;
  headers?: boolean;
  namespace?: string;
  allNamespaces?: boolean;
  outputWatchEvents?: boolean;
  for?: string;
  types?: string;
}

/** The flags `get` and its shortcuts (`nodes`, `events`, `zones`, `leases`) share. */
function addListFlags(cmd: Command, options: { namespace?: boolean; labels?: boolean } = {}): Command {
  cmd
    .addOption(
      new Option(
        '-o, --output <format>',
        'json, yaml (one object for one NAME, a List otherwise), wide (more columns) or name (node/n1)',
      ).choices(OUTPUT_FORMATS),
    )
    .option('--field-selector <selector>', 'server-side filter on fields, e.g. involvedObject.name=node-1,type=Warning')
    .option(
      '-w, --watch',
      'after the list, print one row per change until interrupted (Ctrl-C); survives server restarts',
    )
    .option('--output-watch-events', 'with -w: add an EVENT column (ADDED, MODIFIED, DELETED)')
    .option('--no-headers', 'do not print the column headers');
  if (options.labels !== false)
    cmd.option('-l, --selector <selector>', 'label selector, e.g. topology.kubernetes.io/zone=a,tier!=db');
  if (options.namespace) {
    cmd
      .option('-n, --namespace <namespace>', NAMESPACE_HELP)
      .option('-A, --all-namespaces', 'pods and deployments of every namespace, with a NAMESPACE column');
  }
  return cmd;
}

function getOptions(resource: GetOptions['resource'], names: string[], f: GetFlags, server: string): GetOptions {
  return {
    resource,
    names,
    output: parseOutputFormat(f.output),
    labelSelector: f.selector,
    fieldSelector: f.fieldSelector,
    namespace: f.namespace,
    allNamespaces: f.allNamespaces === true,
    watch: f.watch === true,
    noHeaders: f.headers === false,
    outputWatchEvents: f.outputWatchEvents === true,
    server,
  };
}

/** `--for node/NAME` and `--types` of `sheepctl events` (kubectl events' flags) as a selector and a filter. */
function eventFilters(f: GetFlags): { fieldSelector?: string; types?: string[] } {
  const selectors = f.fieldSelector ? [f.fieldSelector] : [];
  if (f.for !== undefined) {
    const { resource, name } = parseTypedName(f.for);
    selectors.push(`involvedObject.kind=${KIND_OF[resource].kind},involvedObject.name=${name}`);
  }
  const out: { fieldSelector?: string; types?: string[] } = {};
  if (selectors.length > 0) out.fieldSelector = selectors.join(',');
  if (f.types !== undefined) out.types = parseTypes(f.types);
  return out;
}

function parseTypes(s: string): string[] {
  return s.split(',').map((t) => {
    const canonical = EventTypeSchema.options.find((o) => o.toLowerCase() === t.trim().toLowerCase());
    if (!canonical) throw new UsageError(`unknown event type "${t}": use Normal, Warning or Normal,Warning`);
    return canonical;
  });
}

/** `get` and its shortcuts `nodes`, `zones`, `leases`, `events`. */
export function addListCommands(program: Command, run: Runner): void {
  addListFlags(
    program
      .command('get')
      .description(`list objects as a table, or one by NAME; RESOURCE is one of ${RESOURCE_HELP}`)
      .argument('<resource>', 'nodes, leases, events, zones, pods or deployments (singular and short forms accepted)')
      .argument('[names...]', 'only these objects'),
    { namespace: true },
  ).action(async (resource: string, names: string[], f: GetFlags, cmd: Command) => {
    await run(cmd, (deps, server) => runGet(deps, getOptions(resolveResource(resource), names, f, server)), f.watch);
  });

  for (const [name, resource, alias] of [
    ['nodes', 'nodes', 'no'],
    ['zones', 'zones', undefined],
    ['leases', 'leases', undefined],
    ['pods', 'pods', 'po'],
    ['deployments', 'deployments', 'deploy'],
  ] as const) {
    const cmd = program.command(name).description(`same as "get ${name}"`).argument('[names...]', `only these ${name}`);
    if (alias) cmd.alias(alias);
    addListFlags(cmd, { namespace: KIND_OF[resource].namespaced }).action(
      async (names: string[], f: GetFlags, c: Command) => {
        await run(c, (deps, server) => runGet(deps, getOptions(resource, names, f, server)), f.watch);
      },
    );
  }

  addListFlags(
    program
      .command('events')
      .alias('ev')
      .description('list events newest first (LAST SEEN TYPE REASON OBJECT COUNT MESSAGE); same as "get events"')
      .option('--for <type/name>', 'only events about this object, e.g. node/node-1')
      .option('--types <types>', 'only these event types, comma separated: Normal, Warning'),
    { labels: false },
  ).action(async (f: GetFlags, cmd: Command) => {
    await run(
      cmd,
      (deps, server) => runGet(deps, { ...getOptions('events', [], f, server), ...eventFilters(f) }),
      f.watch,
    );
  });
}
