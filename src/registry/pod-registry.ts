import { BadRequestError, ConflictError, isReason } from '../core/errors.js';
import type { Node } from '../core/node.js';
import { objectKey } from '../core/object-key.js';
import { BindingSchema, PodInputSchema, PodSpecSchema, PodStatusSchema } from '../core/pod-schema.js';
import type { Pod } from '../core/pod.js';
import {
  admitPodSpec,
  bindPod,
  planPodDeletion,
  podSpecUpdateProblems,
  podStatusUpdateProblems,
  updatedPodSpec,
} from './pod-strategy.js';
import { replaceObject, type DeleteOptions, type RegistryContext } from './registry-context.js';
import { checkName, invalidError, parseBody } from './validation.js';
import { checkWriteNamespace, newWorkloadMeta, replacedWorkloadMeta } from './workload-meta.js';

const KIND = 'Pod';
/** Read-decide-write loops (bind, delete) retry a lost compare-and-swap this often, as GuaranteedUpdate does. */
const MAX_ATTEMPTS = 8;

/** A status PUT carries the whole pod as read; only status is taken, and a spec, if sent, need only be well-formed. */
const PodStatusBodySchema = PodInputSchema.extend({ spec: PodSpecSchema.optional(), status: PodStatusSchema });

function tooManyWriters(pod: string): ConflictError {
  return new ConflictError('pods', pod, `pod "${pod}" is being changed by too many writers at once; retry the request`);
}

/** Kubernetes' DeleteOptions.gracePeriodSeconds: a whole number of seconds, 0 or more. */
function checkGrace(grace: number | undefined): void {
  if (grace !== undefined && !(Number.isSafeInteger(grace) && grace >= 0)) {
    throw new BadRequestError(`gracePeriodSeconds ${String(grace)} must be a whole number of seconds, 0 or more`);
  }
}

/**
 * Pods (docs/api.md#pod): admission on create and update, a spec that only grows tolerations, the status and
 * binding subresources, and graceful deletion. The rules themselves are the pure functions of pod-strategy.ts.
 */
export class PodRegistry {
  readonly #ctx: RegistryContext;

  constructor(ctx: RegistryContext) {
    this.#ctx = ctx;
  }

  get(namespace: string, name: string): Promise<Pod> {
    return this.#ctx.store.get('pods', objectKey({ namespace, name }));
  }

  /** Admission adds the default tolerations and defaults; status starts Pending whatever the body says. */
  async create(namespace: string, body: unknown): Promise<Pod> {
    const input = parseBody(PodInputSchema, body, KIND);
    checkWriteNamespace(KIND, namespace, input.metadata);
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: newWorkloadMeta(this.#ctx, namespace, input.metadata),
      spec: admitPodSpec(input.spec, this.#ctx.podAdmission),
      status: { phase: 'Pending' },
    };
    return this.#ctx.store.create('pods', pod);
  }

  /** Replaces labels, annotations and owner references; the spec may only gain tolerations; status is kept. */
  async update(namespace: string, name: string, body: unknown): Promise<Pod> {
    const input = parseBody(PodInputSchema, body, KIND, { update: true });
    checkName(KIND, name, input.metadata.name);
    checkWriteNamespace(KIND, namespace, input.metadata);
    const spec = admitPodSpec(input.spec, this.#ctx.podAdmission);
    const key = objectKey({ namespace, name });
    return replaceObject(this.#ctx, 'pods', key, input.metadata.resourceVersion as string, (current) => {
      const causes = podSpecUpdateProblems(current.spec, spec);
      if (causes.length > 0) throw invalidError(KIND, name, causes);
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: replacedWorkloadMeta(current.metadata, input.metadata),
        spec: updatedPodSpec(current.spec, spec),
        status: current.status,
      };
    });
  }

  /** Replaces status only; metadata.resourceVersion is the precondition. */
  async updateStatus(namespace: string, name: string, body: unknown): Promise<Pod> {
    const input = parseBody(PodStatusBodySchema, body, KIND, { update: true });
    checkName(KIND, name, input.metadata.name);
    checkWriteNamespace(KIND, namespace, input.metadata);
    const key = objectKey({ namespace, name });
    return replaceObject(this.#ctx, 'pods', key, input.metadata.resourceVersion as string, (current) => {
      const causes = podStatusUpdateProblems(current.status, input.status);
      if (causes.length > 0) throw invalidError(KIND, name, causes);
      return { ...current, status: input.status };
    });
  }

  /** `POST …/pods/{name}/binding`: the target node must exist; a pod already bound or being deleted is 409. */
  async bind(namespace: string, name: string, body: unknown): Promise<Pod> {
    const binding = parseBody(BindingSchema, body, 'Binding');
    checkName('Binding', name, binding.metadata.name);
    checkWriteNamespace('Binding', namespace, binding.metadata);
    const nodeName = binding.target.name;
    if ((await this.#node(nodeName)) === undefined) {
      throw invalidError('Binding', name, [
        { field: 'target.name', message: `node "${nodeName}" does not exist: bind the pod to a registered node` },
      ]);
    }
    const key = objectKey({ namespace, name });
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.#ctx.store.get('pods', key);
      const bound = bindPod(current, nodeName, this.#ctx.clock.now());
      try {
        return await this.#ctx.store.update('pods', bound, current.metadata.resourceVersion);
      } catch (err) {
        if (!isReason(err, 'Conflict')) throw err;
      }
    }
    throw tooManyWriters(key);
  }

  /**
   * Graceful deletion (pod-strategy.ts planPodDeletion): answers the pod as it now is, marked for deletion, or its
   * last state when it was removed. With a resourceVersion precondition a concurrent change is a Conflict;
   * without, the decision is taken again on the changed pod.
   */
  async delete(namespace: string, name: string, options?: DeleteOptions): Promise<Pod> {
    checkGrace(options?.gracePeriodSeconds);
    const expected = options?.expectedResourceVersion === '' ? undefined : options?.expectedResourceVersion;
    const key = objectKey({ namespace, name });
    const { store } = this.#ctx;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const pod = await store.get('pods', key);
      const rv = pod.metadata.resourceVersion;
      if (expected !== undefined && rv !== expected) throw new ConflictError('pods', name);
      const node = await this.#node(pod.spec.nodeName);
      const plan = planPodDeletion(pod, node, options?.gracePeriodSeconds, this.#ctx.clock.now());
      try {
        if (plan.kind === 'remove') return await store.delete('pods', key, { expectedResourceVersion: rv });
        if (plan.kind === 'mark') return await store.update('pods', plan.pod, rv);
        return pod;
      } catch (err) {
        if (!isReason(err, 'Conflict') || expected !== undefined) throw err;
      }
    }
    throw tooManyWriters(key);
  }

  /** The stored node, or undefined when there is none by that name (or no name). */
  async #node(name: string | undefined): Promise<Node | undefined> {
    if (name === undefined || name === '') return undefined;
    try {
      return await this.#ctx.store.get('nodes', name);
    } catch (err) {
      if (isReason(err, 'NotFound')) return undefined;
      throw err;
    }
  }
}
