import type { ApiClient, NodeClient, Writable } from '../../client/api-client.js';
import { ForbiddenError } from '../../core/errors.js';
import type { Node } from '../../core/node.js';
import type { ShadowNodes } from './shadow-nodes.js';

/** What a dry-run controller may call on every resource: reads only. */
const READS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);
/** And the one write it makes: its verdicts (docs/verdicts.md#dry-run). */
const ALLOWED_WRITES: Readonly<Record<string, ReadonlySet<string>>> = { verdicts: new Set(['create']) };
/** ApiClient members that are neither resources nor writes. */
const PASS_THROUGH: ReadonlySet<string> = new Set(['version', 'close']);

function refusal(resource: string, method: string): ForbiddenError {
  return new ForbiddenError(
    `dry-run controller: refusing ${method} on ${resource}; a dry-run controller writes nothing but its verdicts`,
  );
}

/** Methods bound to the object they came from, so clients that keep private fields work through a Proxy. */
function bound(target: object, prop: string | symbol): unknown {
  const v: unknown = Reflect.get(target, prop);
  return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
}

function readOnly<T extends object>(resource: string, inner: T): T {
  const allowed = ALLOWED_WRITES[resource];
  return new Proxy(inner, {
    get(target, prop) {
      const v = bound(target, prop);
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      if (READS.has(prop) || allowed?.has(prop)) return v;
      return () => Promise.reject(refusal(resource, prop));
    },
  });
}

/**
 * The structural half of the dry-run guarantee: an ApiClient through which every method that is not a read
 * (`get`, `list`, `watch`) is refused with a ForbiddenError, on every resource the client has or will have, except
 * creating verdicts. An allowlist, so a write path added later, or one the dry-run forgot to simulate, cannot write.
 */
export function refuseWrites(client: ApiClient): ApiClient {
  return new Proxy(client, {
    get(target, prop) {
      const v = bound(target, prop);
      if (typeof prop !== 'string' || PASS_THROUGH.has(prop)) return v;
      // Namespaced resources are methods returning a resource client (`leases(ns)`).
      if (typeof v === 'function')
        return (...args: unknown[]) => readOnly(prop, (v as (...a: unknown[]) => object)(...args));
      return v !== null && typeof v === 'object' ? readOnly(prop, v) : v;
    },
  });
}

/**
 * The dry-run controller's client: node writes are simulated by `shadow` (the controller's later decisions follow
 * from them), live node reads are seen through it, and everything else goes to `inner`, which refuses writes
 * (`refuseWrites`).
 */
export function simulatingClient(inner: ApiClient, shadow: ShadowNodes): ApiClient {
  const live = inner.nodes;
  const nodes: NodeClient = new Proxy(live, {
    get(target, prop) {
      if (prop === 'updateStatus') return async (obj: Writable<Node>) => shadow.updateStatus(obj);
      if (prop === 'update') return async (obj: Writable<Node>) => shadow.update(obj);
      if (prop === 'get') return async (name: string) => shadow.peek(await target.get(name));
      return bound(target, prop);
    },
  });
  return new Proxy(inner, { get: (target, prop) => (prop === 'nodes' ? nodes : bound(target, prop)) });
}
