import { BadRequestError } from '../core/errors.js';
import type { ObjectMeta, OwnerReference } from '../core/meta.js';
import { namespaceProblem } from '../core/names.js';
import { newMeta, replacedMeta, type RegistryContext } from './registry-context.js';
import { invalidError } from './validation.js';

/** What a workload body (Pod, Deployment) carries in metadata, after validation. */
export interface WorkloadMetaInput {
  name: string;
  namespace?: string | undefined;
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
  ownerReferences?: OwnerReference[] | undefined;
}

export type NamespacedMeta = ObjectMeta & { namespace: string };

/**
 * The namespace of a write comes from the URL: a body naming another one is 400 (as Kubernetes answers), and a URL
 * namespace that is not an RFC 1123 label is 422. Namespaces need not be created first.
 */
export function checkWriteNamespace(kind: string, namespace: string, input: WorkloadMetaInput): void {
  const given = input.namespace;
  if (given !== undefined && given !== '' && given !== namespace) {
    throw new BadRequestError(
      `the namespace of the provided object (${given}) does not match the namespace sent on the request (${namespace})`,
    );
  }
  const problem = namespaceProblem(namespace);
  if (problem !== undefined) {
    throw invalidError(kind, input.name, [{ field: 'metadata.namespace', message: `"${namespace}": ${problem}` }]);
  }
}

/** Metadata of a new workload object: server-set identity, the URL's namespace, the body's owner references. */
export function newWorkloadMeta(ctx: RegistryContext, namespace: string, input: WorkloadMetaInput): NamespacedMeta {
  const meta: NamespacedMeta = { ...newMeta(ctx, input), namespace };
  if (input.ownerReferences !== undefined) meta.ownerReferences = input.ownerReferences;
  return meta;
}

/**
 * Metadata of a replaced workload object: identity and the server-set fields (generation, graceful deletion) from
 * the stored object; labels, annotations and owner references from the body.
 */
export function replacedWorkloadMeta(current: NamespacedMeta, input: WorkloadMetaInput): NamespacedMeta {
  const meta = { ...replacedMeta(current, input), namespace: current.namespace };
  if (input.ownerReferences !== undefined) meta.ownerReferences = input.ownerReferences;
  if (current.generation !== undefined) meta.generation = current.generation;
  if (current.deletionTimestamp !== undefined) meta.deletionTimestamp = current.deletionTimestamp;
  if (current.deletionGracePeriodSeconds !== undefined) {
    meta.deletionGracePeriodSeconds = current.deletionGracePeriodSeconds;
  }
  return meta;
}
