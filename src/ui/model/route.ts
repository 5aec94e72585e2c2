/** The dashboard's views, addressed by the URL's hash so every view (and every node) has a link. */
export type Route =
  | { view: 'overview' }
  | { view: 'nodes'; zone?: string }
  | { view: 'node'; name: string }
  | { view: 'events' }
  | { view: 'pods'; namespace?: string; node?: string; phase?: string }
  | { view: 'deployments' }
  | { view: 'deployment'; namespace: string; name: string }
  | { view: 'missing'; hash: string };

const POD_FILTERS = ['namespace', 'node', 'phase'] as const;

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/**
 * `#/`, `#/nodes`, `#/nodes?zone=ZONE`, `#/nodes/NAME`, `#/events`, `#/pods?namespace=NS&node=NODE&phase=PHASE`
 * (each filter optional), `#/deployments`, `#/deployments/NS/NAME`; anything else is `missing`.
 */
export function parseRoute(hash: string): Route {
  const [rawPath = '', query = ''] = hash.replace(/^#/, '').split('?', 2);
  const path = rawPath.replace(/\/+$/, '');
  if (path === '' || path === '/overview') return { view: 'overview' };
  if (path === '/events') return { view: 'events' };
  if (path === '/deployments') return { view: 'deployments' };
  if (path === '/pods') {
    const params = new URLSearchParams(query);
    const route: Route = { view: 'pods' };
    for (const f of POD_FILTERS) {
      const v = params.get(f);
      if (v !== null && v !== '') route[f] = v;
    }
    return route;
  }
  const deployment = /^\/deployments\/([^/]+)\/([^/]+)$/.exec(path);
  if (deployment) {
    const namespace = decode(deployment[1] as string);
    const name = decode(deployment[2] as string);
    if (namespace !== undefined && name !== undefined) return { view: 'deployment', namespace, name };
    return { view: 'missing', hash };
  }
  if (path === '/nodes') {
    const zone = new URLSearchParams(query).get('zone');
    return zone === null || zone === '' ? { view: 'nodes' } : { view: 'nodes', zone };
  }
  const node = /^\/nodes\/([^/]+)$/.exec(path);
  const name = node ? decode(node[1] as string) : undefined;
  return name === undefined ? { view: 'missing', hash } : { view: 'node', name };
}

export function hrefOf(route: Exclude<Route, { view: 'missing' }>): string {
  switch (route.view) {
    case 'overview':
      return '#/';
    case 'nodes':
      return route.zone === undefined ? '#/nodes' : `#/nodes?zone=${encodeURIComponent(route.zone)}`;
    case 'events':
      return '#/events';
    case 'deployments':
      return '#/deployments';
    case 'deployment':
      return `#/deployments/${encodeURIComponent(route.namespace)}/${encodeURIComponent(route.name)}`;
    case 'pods': {
      const params = new URLSearchParams();
      for (const f of POD_FILTERS) if (route[f] !== undefined) params.set(f, route[f]);
      const q = params.toString();
      return q === '' ? '#/pods' : `#/pods?${q}`;
    }
    case 'node':
      return `#/nodes/${encodeURIComponent(route.name)}`;
  }
}
