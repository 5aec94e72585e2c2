import { isReason } from '../core/errors.js';
import { NODE_LEASE_NAMESPACE } from '../core/lease.js';
import { objectKey } from '../core/object-key.js';
import { acceptNodeInput } from '../core/node-accept.js';
import { NodeInputSchema } from '../core/node-schema.js';
import type { Node, NodeInput } from '../core/node.js';
import {
  deleteObject,
  newMeta,
  replacedMeta,
  replaceObject,
  type DeleteOptions,
  type RegistryContext,
} from './registry-context.js';
import { zoneLabelProblem } from '../core/zone-name.js';
import { checkName, invalidError, parseBody } from './validation.js';

const KIND = 'Node';

/**
 * A Node write hands its object over to the store (store.ts WriteOptions): what it writes is built here from the
 * accepted body (a new object at every level, node-accept.ts or the schema's output) and the current object the
 * store parsed for this write, so nothing else holds any of it. In-process watchers (the controller's informer) then
 * keep the object the write answered, not a second parse of its JSON: a cold start's Suspect pass writes 100k Nodes
 * (BENCHMARKS.md §30).
 */
const HAND_OVER = { handOver: true } as const;

/** The controller's whole-Node writes are almost always bodies the fast path knows; anything else goes to the schema. */
function parseNode(body: unknown, update: boolean): NodeInput {
  return acceptNodeInput(body, { update }) ?? parseBody(NodeInputSchema, body, KIND, { update });
}

/**
 * The controller names a Zone object after a node's zone labels: labels that make no valid Zone name would fail
 * that write on every pass, so a create or PUT that sets them is refused (PUT /status ignores labels, so a node
 * stored before this check still reports its status).
 */
function checkZoneLabels(input: NodeInput): void {
  const problem = zoneLabelProblem(input.metadata.labels);
  if (problem === undefined) return;
  throw invalidError(KIND, input.metadata.name, [
    { field: `metadata.labels[${problem.label}]`, message: problem.message },
  ]);
}

/** Nodes: PUT replaces labels/annotations/spec, PUT /status replaces status (Kubernetes' status subresource). */
export class NodeRegistry {
  readonly #ctx: RegistryContext;

  constructor(ctx: RegistryContext) {
    this.#ctx = ctx;
  }

  get(name: string): Promise<Node> {
    return this.#ctx.store.get('nodes', name);
  }

  async create(body: unknown): Promise<Node> {
    const input = parseNode(body, false);
    checkZoneLabels(input);
    const node: Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: newMeta(this.#ctx, input.metadata),
      spec: input.spec ?? {},
      // Agents register with their first status (as the kubelet does), so create keeps it.
      status: input.status ?? {},
    };
    return this.#ctx.store.create('nodes', node);
  }

  /** Replaces labels, annotations and spec; the stored status is kept whatever the body says. */
  async update(name: string, body: unknown): Promise<Node> {
    const input = parseNode(body, true);
    checkName(KIND, name, input.metadata.name);
    checkZoneLabels(input);
    return replaceObject(
      this.#ctx,
      'nodes',
      name,
      input.metadata.resourceVersion as string,
      (current) => ({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: replacedMeta(current.metadata, input.metadata),
        spec: input.spec ?? {},
        status: current.status,
      }),
      HAND_OVER,
    );
  }

  /** Replaces status only; metadata.resourceVersion is the precondition, the rest of metadata and spec are ignored. */
  async updateStatus(name: string, body: unknown): Promise<Node> {
    const input = parseNode(body, true);
    checkName(KIND, name, input.metadata.name);
    return replaceObject(
      this.#ctx,
      'nodes',
      name,
      input.metadata.resourceVersion as string,
      (current) => ({ ...current, status: input.status ?? {} }),
      HAND_OVER,
    );
  }

  /** Deletes the node, then its lease (`node-lease/<name>`) if any; answers the node's last state. */
  async delete(name: string, options?: DeleteOptions): Promise<Node> {
    const last = await deleteObject(this.#ctx, 'nodes', name, options);
    try {
      await this.#ctx.store.delete('leases', objectKey({ namespace: NODE_LEASE_NAMESPACE, name }));
    } catch (err) {
      if (!isReason(err, 'NotFound')) throw err;
    }
    return last;
  }
}
