import type { Command } from 'commander';
import { UsageError } from './cli-context.js';
import { runDelete } from './delete.js';
import { runDescribeNode } from './describe.js';
import { runDescribeDeployment } from './describe-deployment.js';
import { runDescribePod } from './describe-pod.js';
import { runManifests } from './manifest-commands.js';
import type { Runner } from './program.js';
import { resolveResource } from './resource-names.js';
import { collect, parseSeconds } from './workload-commands.js';

/** `-n`: what it names depends on the resource; pods and deployments default to `default`, leases to node-lease. */
export const NAMESPACE_HELP =
  'namespace of pods and deployments (default "default") or of leases (node-lease, the default, or shepherd-system)';

interface DeleteFlags {
  filename?: string[];
  namespace?: string;
  gracePeriod?: number;
}

/** `describe node|pod|deployment NAME` (docs/cli.md#describe). */
export function addDescribeCommand(program: Command, run: Runner): void {
  program
    .command('describe')
    .description(
      'show one object in detail: a node (conditions, taints, lease, zone, verdict), a pod (node, status, containers, tolerations, owner) or a deployment (replicas, strategy, template, its pods), with its recent events',
    )
    .argument('<resource>', 'node, pod or deployment')
    .argument('<name>', 'object name')
    .option('-n, --namespace <namespace>', 'namespace of the pod or deployment (default "default")')
    .action(async (resource: string, name: string, f: { namespace?: string }, cmd: Command) => {
      await run(cmd, (deps) => {
        switch (resolveResource(resource)) {
          case 'nodes':
            return runDescribeNode(deps, name);
          case 'pods':
            return runDescribePod(deps, name, f.namespace);
          case 'deployments':
            return runDescribeDeployment(deps, name, f.namespace);
          default:
            throw new UsageError(
              'describe supports node, pod and deployment; use "sheepctl get RESOURCE NAME -o yaml" for the others',
            );
        }
      });
    });
}

/** `delete RESOURCE NAME...` and `delete -f FILE` (docs/cli.md#delete-and-scale). */
export function addDeleteCommand(program: Command, run: Runner): void {
  program
    .command('delete')
    .description(
      'delete objects by name, or those of manifests with -f (a node takes its lease along, a deployment its pods; a pod on a node stops gracefully)',
    )
    .argument('[resource]', 'node, lease, event, zone, pod or deployment (not with -f)')
    .argument('[names...]', 'names of the objects to delete')
    .option(
      '-f, --filename <file>',
      'delete the objects of this manifest (file, directory, or - for stdin); repeatable',
      collect,
    )
    .option('-n, --namespace <namespace>', NAMESPACE_HELP)
    .option(
      '--grace-period <seconds>',
      "pods: seconds to stop before SIGKILL, instead of the pod's terminationGracePeriodSeconds; 0 removes the object at once",
      parseSeconds,
    )
    .action(async (resource: string | undefined, names: string[], f: DeleteFlags, cmd: Command) => {
      await run(cmd, (deps, server) => {
        if (f.filename !== undefined) {
          if (resource !== undefined) throw new UsageError('give either -f FILE or RESOURCE NAME..., not both');
          return runManifests(deps, 'delete', {
            files: f.filename,
            namespace: f.namespace,
            gracePeriodSeconds: f.gracePeriod,
            server,
          });
        }
        if (resource === undefined || names.length === 0) {
          throw new UsageError('name what to delete: RESOURCE NAME... or -f FILE');
        }
        return runDelete(deps, resolveResource(resource), names, f.namespace, f.gracePeriod);
      });
    });
}
