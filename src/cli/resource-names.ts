import { KIND_OF, type Resource } from '../core/kinds.js';
import { UsageError } from './cli-context.js';

/** kubectl accepts singular, plural and short names; so do we. */
const ALIASES: Record<string, Resource> = {
  node: 'nodes',
  nodes: 'nodes',
  no: 'nodes',
  lease: 'leases',
  leases: 'leases',
  event: 'events',
  events: 'events',
  ev: 'events',
  zone: 'zones',
  zones: 'zones',
  pod: 'pods',
  pods: 'pods',
  po: 'pods',
  deployment: 'deployments',
  deployments: 'deployments',
  deploy: 'deployments',
  verdict: 'verdicts',
  verdicts: 'verdicts',
};

export const RESOURCE_HELP =
  'nodes (node, no), leases (lease), events (event, ev), zones (zone), pods (pod, po), deployments (deployment, deploy), verdicts (verdict)';

export function resolveResource(name: string): Resource {
  const r = ALIASES[name.toLowerCase()];
  if (r === undefined) {
    throw new UsageError(`unknown resource type "${name}": use one of ${RESOURCE_HELP}`);
  }
  return r;
}

export function singularOf(resource: Resource): string {
  return KIND_OF[resource].singular;
}

/** Splits `node/n1` into its resource and name (kubectl's TYPE/NAME form). */
export function parseTypedName(s: string): { resource: Resource; name: string } {
  const slash = s.indexOf('/');
  if (slash <= 0 || slash === s.length - 1) {
    throw new UsageError(`"${s}" is not of the form TYPE/NAME, e.g. node/node-1`);
  }
  return { resource: resolveResource(s.slice(0, slash)), name: s.slice(slash + 1) };
}
