/** The dashboard's views, addressed by the URL's hash so every view (and every node) has a link. */
export type Route =
  | { view: 'overview' }
  | { view: 'nodes'; zone?: string }
  | { view: 'node'; name: string }
  | { view: 'events' }
  | { view: 'missing'; hash: string };

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** `#/`, `#/nodes`, `#/nodes?zone=ZONE`, `#/nodes/NAME`, `#/events`; anything else is `missing`. */
export function parseRoute(hash: string): Route {
  const [rawPath = '', query = ''] = hash.replace(/^#/, '').split('?', 2);
  const path = rawPath.replace(/\/+$/, '');
  if (path === '' || path === '/overview') return { view: 'overview' };
  if (path === '/events') return { view: 'events' };
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
    case 'node':
      return `#/nodes/${encodeURIComponent(route.name)}`;
  }
}
