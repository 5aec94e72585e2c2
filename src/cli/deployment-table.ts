import type { Deployment } from '../core/deployment.js';
import { age } from './age.js';
import type { Cell } from './table-printer.js';

export const DEPLOYMENT_HEADERS = ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'];
export const DEPLOYMENT_WIDE_HEADERS = [...DEPLOYMENT_HEADERS, 'CONTAINERS', 'IMAGES', 'SELECTOR'];

/** The headers of `get deployments`: NAMESPACE first with `-A`. */
export function deploymentHeaders(wide: boolean, allNamespaces: boolean): string[] {
  const headers = wide ? DEPLOYMENT_WIDE_HEADERS : DEPLOYMENT_HEADERS;
  return allNamespaces ? ['NAMESPACE', ...headers] : headers;
}

/** `app=web,tier=front`: a matchLabels selector in kubectl's form, keys sorted. */
export function formatSelector(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** kubectl's deployment columns: READY is ready/desired replicas, UP-TO-DATE and AVAILABLE from the status. */
export function deploymentRow(d: Deployment, now: number, wide: boolean, allNamespaces: boolean): Cell[] {
  const s = d.status;
  const row: Cell[] = [
    d.metadata.name,
    `${s.readyReplicas ?? 0}/${d.spec.replicas ?? 1}`,
    String(s.updatedReplicas ?? 0),
    String(s.availableReplicas ?? 0),
    age(d.metadata.creationTimestamp, now),
  ];
  if (wide) {
    const containers = d.spec.template.spec.containers;
    row.push(
      containers.map((c) => c.name).join(','),
      containers.map((c) => c.image ?? '').join(','),
      formatSelector(d.spec.selector.matchLabels),
    );
  }
  return allNamespaces ? [d.metadata.namespace, ...row] : row;
}
