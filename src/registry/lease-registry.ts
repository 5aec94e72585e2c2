import { BadRequestError } from '../core/errors.js';
import { acceptLeaseInput } from '../core/lease-accept.js';
import { LeaseInputSchema } from '../core/lease-schema.js';
import { LEASE_NAMESPACES, type Lease, type LeaseInput } from '../core/lease.js';
import { objectKey } from '../core/object-key.js';
import {
  deleteObject,
  newMeta,
  replacedMeta,
  replaceObject,
  type DeleteOptions,
  type RegistryContext,
} from './registry-context.js';
import { checkName, invalidError, parseBody } from './validation.js';

const KIND = 'Lease';

/** The body's namespace, if given, must be the URL's; and only the two lease namespaces exist. */
function checkNamespace(namespace: string, input: LeaseInput): void {
  const given = input.metadata.namespace;
  if (given !== undefined && given !== '' && given !== namespace) {
    throw new BadRequestError(
      `the namespace of the provided object (${given}) does not match the namespace sent on the request (${namespace})`,
    );
  }
  if (!(LEASE_NAMESPACES as readonly string[]).includes(namespace)) {
    throw invalidError(KIND, input.metadata.name, [
      { field: 'metadata.namespace', message: `must be one of ${LEASE_NAMESPACES.join(', ')}, not "${namespace}"` },
    ]);
  }
}

/**
 * Leases. The PUT is the fleet's hot path (one renewal per node every few seconds): one schema parse, one
 * read for identity and precondition, one compare-and-swap write; nothing else.
 */
export class LeaseRegistry {
  readonly #ctx: RegistryContext;

  constructor(ctx: RegistryContext) {
    this.#ctx = ctx;
  }

  get(namespace: string, name: string): Promise<Lease> {
    return this.#ctx.store.get('leases', objectKey({ namespace, name }));
  }

  async create(namespace: string, body: unknown): Promise<Lease> {
    const input = parseBody(LeaseInputSchema, body, KIND);
    checkNamespace(namespace, input);
    const lease: Lease = {
      apiVersion: 'coordination/v1',
      kind: 'Lease',
      metadata: { ...newMeta(this.#ctx, input.metadata), namespace },
      spec: input.spec,
    };
    return this.#ctx.store.create('leases', lease);
  }

  async update(namespace: string, name: string, body: unknown): Promise<Lease> {
    // The renewal's body is almost always the plain one the fast path knows; anything else goes to the schema.
    const input = acceptLeaseInput(body, { update: true }) ?? parseBody(LeaseInputSchema, body, KIND, { update: true });
    checkName(KIND, name, input.metadata.name);
    checkNamespace(namespace, input);
    return replaceObject(
      this.#ctx,
      'leases',
      objectKey({ namespace, name }),
      input.metadata.resourceVersion as string,
      (current) => ({
        apiVersion: 'coordination/v1',
        kind: 'Lease',
        metadata: replacedMeta(current.metadata, input.metadata) as Lease['metadata'],
        spec: input.spec,
      }),
      // Built here from the accepted body (a new object at every level: lease-accept.ts, or the schema's output),
      // and the current object's strings: nothing else holds any of it.
      { handOver: true },
    );
  }

  delete(namespace: string, name: string, options?: DeleteOptions): Promise<Lease> {
    return deleteObject(this.#ctx, 'leases', objectKey({ namespace, name }), options);
  }
}
