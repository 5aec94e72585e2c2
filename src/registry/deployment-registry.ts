import { DeploymentInputSchema, DeploymentSpecSchema, DeploymentStatusSchema } from '../core/deployment-schema.js';
import type { Deployment } from '../core/deployment.js';
import { isReason } from '../core/errors.js';
import { namespaceKeyPrefix, objectKey } from '../core/object-key.js';
import type { Pod } from '../core/pod.js';
import { nextGeneration, withDeploymentDefaults } from './deployment-strategy.js';
import { pickInPages } from './periodic-gc.js';
import type { PodRegistry } from './pod-registry.js';
import { deleteObject, replaceObject, type DeleteOptions, type RegistryContext } from './registry-context.js';
import { checkName, parseBody } from './validation.js';
import { checkWriteNamespace, newWorkloadMeta, replacedWorkloadMeta } from './workload-meta.js';

const KIND = 'Deployment';

/** A status PUT carries the whole Deployment as read; only status is taken. */
const DeploymentStatusBodySchema = DeploymentInputSchema.extend({
  spec: DeploymentSpecSchema.optional(),
  status: DeploymentStatusSchema,
});

/**
 * Deployments (docs/api.md#deployment): defaults, `metadata.generation` bumped on every spec change, the status
 * subresource, and deletion that cascades to the pods the Deployment owns.
 */
export class DeploymentRegistry {
  readonly #ctx: RegistryContext;
  readonly #pods: PodRegistry;

  constructor(ctx: RegistryContext, pods: PodRegistry) {
    this.#ctx = ctx;
    this.#pods = pods;
  }

  get(namespace: string, name: string): Promise<Deployment> {
    return this.#ctx.store.get('deployments', objectKey({ namespace, name }));
  }

  /** Generation 1 and an empty status, whatever the body says. */
  async create(namespace: string, body: unknown): Promise<Deployment> {
    const input = parseBody(DeploymentInputSchema, body, KIND);
    checkWriteNamespace(KIND, namespace, input.metadata);
    const spec = withDeploymentDefaults(input.spec);
    const deployment: Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        ...newWorkloadMeta(this.#ctx, namespace, input.metadata),
        generation: nextGeneration(undefined, spec),
      },
      spec,
      status: {},
    };
    return this.#ctx.store.create('deployments', deployment);
  }

  /** Replaces labels, annotations, owner references and spec (generation + 1 when the spec changed); keeps status. */
  async update(namespace: string, name: string, body: unknown): Promise<Deployment> {
    const input = parseBody(DeploymentInputSchema, body, KIND, { update: true });
    checkName(KIND, name, input.metadata.name);
    checkWriteNamespace(KIND, namespace, input.metadata);
    const spec = withDeploymentDefaults(input.spec);
    const key = objectKey({ namespace, name });
    return replaceObject(this.#ctx, 'deployments', key, input.metadata.resourceVersion as string, (current) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        ...replacedWorkloadMeta(current.metadata, input.metadata),
        generation: nextGeneration(current, spec),
      },
      spec,
      status: current.status,
    }));
  }

  /** Replaces status only; metadata.resourceVersion is the precondition. */
  async updateStatus(namespace: string, name: string, body: unknown): Promise<Deployment> {
    const input = parseBody(DeploymentStatusBodySchema, body, KIND, { update: true });
    checkName(KIND, name, input.metadata.name);
    checkWriteNamespace(KIND, namespace, input.metadata);
    const key = objectKey({ namespace, name });
    return replaceObject(this.#ctx, 'deployments', key, input.metadata.resourceVersion as string, (current) => ({
      ...current,
      status: input.status,
    }));
  }

  /**
   * Deletes the Deployment, then (gracefully) every pod of its namespace that names it as owner (ownerReference
   * uid). A pod created meanwhile by a controller that had not yet seen the deletion, or left behind by a server
   * that stopped half-way, is collected by the orphan collector (docs/api.md#deleting-a-deployment).
   */
  async delete(namespace: string, name: string, options?: DeleteOptions): Promise<Deployment> {
    const last = await deleteObject(this.#ctx, 'deployments', objectKey({ namespace, name }), options);
    await this.deleteOwnedPods(namespace, last.metadata.uid);
    return last;
  }

  /**
   * Deletes (gracefully) the pods of `namespace` owned by the Deployment with `uid`; answers how many it asked. The
   * namespace's pods are read in pages, keeping only the names of those to delete (periodic-gc.ts).
   */
  async deleteOwnedPods(namespace: string, uid: string): Promise<number> {
    const owned = (pod: Pod): boolean =>
      pod.metadata.deletionTimestamp === undefined && (pod.metadata.ownerReferences ?? []).some((o) => o.uid === uid);
    const { refs } = await pickInPages(this.#ctx.store, 'pods', owned, { prefix: namespaceKeyPrefix(namespace) });
    let deleted = 0;
    for (const pod of refs) {
      try {
        await this.#pods.delete(namespace, pod.metadata.name);
        deleted++;
      } catch (err) {
        if (!isReason(err, 'NotFound')) throw err;
      }
    }
    return deleted;
  }
}
