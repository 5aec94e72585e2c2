import { isReason } from '../core/errors.js';
import { DEFAULT_NAMESPACE } from '../core/pod.js';
import { CliError, type CliDeps } from './cli-context.js';

/** A write lost to a concurrent one (409 Conflict: the controller writes status often) is retried this often. */
const MAX_SCALE_ATTEMPTS = 5;

/**
 * `sheepctl scale deployment NAME --replicas N`: sets spec.replicas with the resourceVersion just read (the API has
 * no scale subresource), retrying on Conflict. The deployment controller then creates or deletes pods.
 */
export async function runScale(deps: CliDeps, name: string, replicas: number, namespace?: string): Promise<number> {
  const deployments = deps.client.deployments(namespace ?? DEFAULT_NAMESPACE);
  const opts = deps.signal ? { signal: deps.signal } : {};
  for (let attempt = 1; ; attempt++) {
    let current;
    try {
      current = await deployments.get(name, opts);
    } catch (err) {
      if (isReason(err, 'NotFound')) throw new CliError(`deployment "${name}" not found`, { cause: err });
      throw err;
    }
    try {
      await deployments.update({ ...current, spec: { ...current.spec, replicas } }, opts);
      deps.out.write(`deployment/${name} scaled\n`);
      return 0;
    } catch (err) {
      if (!isReason(err, 'Conflict') || attempt >= MAX_SCALE_ATTEMPTS) throw err;
    }
  }
}
