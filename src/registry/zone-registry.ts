import { zoneObjectName } from '../core/node.js';
import { ZoneInputSchema, type Zone, type ZoneInput } from '../core/zone.js';
import {
  deleteObject,
  newMeta,
  replacedMeta,
  replaceObject,
  type DeleteOptions,
  type RegistryContext,
} from './registry-context.js';
import { checkName, parseBody } from './validation.js';

const KIND = 'Zone';

/** The zone key "" (nodes without zone labels) is stored and served as the Zone named `default`. */
function withZoneName(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const meta = (body as { metadata?: unknown }).metadata;
  if (typeof meta !== 'object' || meta === null || (meta as { name?: unknown }).name !== '') return body;
  return { ...body, metadata: { ...meta, name: zoneObjectName('') } };
}

function parseZone(body: unknown, update: boolean): ZoneInput {
  return parseBody(ZoneInputSchema, withZoneName(body), KIND, { update });
}

/** Zones: plain objects written by the node lifecycle controller, one per zone key. */
export class ZoneRegistry {
  readonly #ctx: RegistryContext;

  constructor(ctx: RegistryContext) {
    this.#ctx = ctx;
  }

  get(name: string): Promise<Zone> {
    return this.#ctx.store.get('zones', zoneObjectName(name));
  }

  async create(body: unknown): Promise<Zone> {
    const input = parseZone(body, false);
    const zone: Zone = {
      apiVersion: 'v1',
      kind: 'Zone',
      metadata: newMeta(this.#ctx, input.metadata),
      status: input.status,
    };
    return this.#ctx.store.create('zones', zone);
  }

  async update(name: string, body: unknown): Promise<Zone> {
    const input = parseZone(body, true);
    const key = zoneObjectName(name);
    checkName(KIND, key, input.metadata.name);
    return replaceObject(this.#ctx, 'zones', key, input.metadata.resourceVersion as string, (current) => ({
      apiVersion: 'v1',
      kind: 'Zone',
      metadata: replacedMeta(current.metadata, input.metadata),
      status: input.status,
    }));
  }

  delete(name: string, options?: DeleteOptions): Promise<Zone> {
    return deleteObject(this.#ctx, 'zones', zoneObjectName(name), options);
  }
}
