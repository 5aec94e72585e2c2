import { InvalidArgumentError, type Command } from 'commander';
import { UsageError } from './cli-context.js';
import { runManifests, type ManifestAction } from './manifest-commands.js';
import type { Runner } from './program.js';
import { resolveResource } from './resource-names.js';
import { runScale } from './scale.js';

/** commander collector for a repeatable option (`-f a.yaml -f b.yaml`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** commander argParser for a whole number of seconds or replicas, 0 or more. */
export function parseSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError(`must be a whole number, 0 or more, not "${value}"`);
  }
  return n;
}

const MANIFEST_HELP = `
A manifest holds one or more objects (kinds Node, Lease, Event, Zone, Pod, Deployment, Verdict) as YAML documents
separated by "---", or as JSON; a "kind: List" stands for its items. Objects are written in file order; one that
fails is reported with its file and document number ("web.yaml, document 2 (pod/web-1): ...") and the others still
go through. Exit status 1 if any failed.

Examples:
  sheepctl apply -f web.yaml
  cat web.yaml | sheepctl apply -f -
  sheepctl create -f manifests/            # every .yaml, .yml and .json file of the directory, in name order`;

interface ManifestFlags {
  filename?: string[];
  namespace?: string;
}

/** `create -f`, `apply -f` and `scale` (docs/cli.md#workloads). */
export function addManifestCommands(program: Command, run: Runner): void {
  const descriptions: Record<Exclude<ManifestAction, 'delete'>, string> = {
    create: 'create the objects of manifests (an object that exists is an error: AlreadyExists)',
    apply:
      'create the objects of manifests, or update those that exist: fields the manifest sets or changed since the last apply are written, the rest (replicas set by scale, defaults the server added) are kept',
  };
  for (const action of ['create', 'apply'] as const) {
    program
      .command(action)
      .description(descriptions[action])
      .requiredOption(
        '-f, --filename <file>',
        'a manifest file, a directory of them, or - for standard input; repeatable',
        collect,
      )
      .option(
        '-n, --namespace <namespace>',
        'namespace of pods and deployments whose manifest names none (default "default")',
      )
      .addHelpText('after', MANIFEST_HELP)
      .action(async (f: ManifestFlags, cmd: Command) => {
        await run(cmd, (deps, server) => {
          if (f.filename === undefined) throw new UsageError(`${action} needs -f FILE`);
          return runManifests(deps, action, { files: f.filename, namespace: f.namespace, server });
        });
      });
  }

  program
    .command('scale')
    .description('set the number of replicas of a deployment; its controller then creates or deletes pods')
    .argument('<resource>', 'deployment')
    .argument('<name>', 'deployment name')
    .requiredOption('--replicas <n>', 'the new number of replicas', parseSeconds)
    .option('-n, --namespace <namespace>', 'namespace of the deployment (default "default")')
    .action(async (resource: string, name: string, f: { replicas: number; namespace?: string }, cmd: Command) => {
      await run(cmd, (deps) => {
        if (resolveResource(resource) !== 'deployments') throw new UsageError('scale supports deployment');
        return runScale(deps, name, f.replicas, f.namespace);
      });
    });
}
