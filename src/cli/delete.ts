import { isReason } from '../core/errors.js';
import type { Resource } from '../core/kinds.js';
import type { CliDeps } from './cli-context.js';
import { resourceClient } from './resource-views.js';
import { singularOf } from './resource-names.js';

/**
 * `sheepctl delete RESOURCE NAME...`: kubectl's `node "n1" deleted` per object. A missing name is reported
 * and the others are still deleted; the exit code is 1 if any failed. Deleting a node also deletes its
 * lease on the server; deleting a Deployment deletes its pods (the server cascades); a pod bound to a node is
 * deleted gracefully (its agent stops it first) unless `gracePeriodSeconds` is 0.
 */
export async function runDelete(
  deps: CliDeps,
  resource: Resource,
  names: string[],
  namespace?: string,
  gracePeriodSeconds?: number,
): Promise<number> {
  const rc = resourceClient(deps.client, resource, namespace);
  const singular = singularOf(resource);
  const options = {
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
  };
  let code = 0;
  for (const name of names) {
    try {
      await rc.delete(name, options);
      deps.out.write(`${singular} "${name}" deleted\n`);
    } catch (err) {
      if (!isReason(err, 'NotFound')) throw err;
      deps.err.write(`sheepctl: ${singular} "${name}" not found\n`);
      code = 1;
    }
  }
  return code;
}
