import type { Deployment } from '../core/deployment.js';
import type { Event } from '../core/event.js';
import { isReason } from '../core/errors.js';
import { DEFAULT_NAMESPACE, type Pod } from '../core/pod.js';
import { age } from './age.js';
import { CliError, type CliDeps } from './cli-context.js';
import { describeEvents, formatFields } from './describe.js';
import { eventsAbout, formatToleration, pairs } from './describe-pod.js';
import { formatSelector } from './deployment-table.js';
import { POD_HEADERS, podRow } from './pod-table.js';
import { TablePrinter } from './table-printer.js';

/**
 * `sheepctl describe deployment NAME`: replicas, strategy, the pod template, conditions, the pods it owns (a
 * table, as `get pods` prints them) and its Events, as `kubectl describe deployment` shows them.
 */
export async function runDescribeDeployment(
  deps: CliDeps,
  name: string,
  namespace = DEFAULT_NAMESPACE,
): Promise<number> {
  const opts = deps.signal ? { signal: deps.signal } : {};
  let d: Deployment;
  try {
    d = await deps.client.deployments(namespace).get(name, opts);
  } catch (err) {
    if (isReason(err, 'NotFound')) {
      throw new CliError(`deployment "${name}" not found in namespace ${namespace}`, { cause: err });
    }
    throw err;
  }
  const [pods, events] = await Promise.all([
    deps.client.pods(namespace).list({ ...opts, labelSelector: formatSelector(d.spec.selector.matchLabels) }),
    eventsAbout(deps, 'Deployment', name, namespace),
  ]);
  const owned = pods.items.filter((p) => p.metadata.ownerReferences?.some((o) => o.uid === d.metadata.uid));
  deps.out.write(describeDeployment(deps, d, owned, events));
  return 0;
}

export function describeDeployment(
  deps: Pick<CliDeps, 'now' | 'colour'>,
  d: Deployment,
  pods: Pod[],
  events: Event[],
): string {
  const now = deps.now();
  const m = d.metadata;
  const s = d.status;
  const strategy = d.spec.strategy;
  const replicas = d.spec.replicas ?? 1;
  const t = d.spec.template;
  let out = formatFields([
    ['Name', m.name],
    ['Namespace', m.namespace],
    ['CreationTimestamp', `${m.creationTimestamp} (${age(m.creationTimestamp, now)} ago)`],
    ['Labels', pairs(m.labels)],
    ['Annotations', pairs(m.annotations)],
    ['Selector', formatSelector(d.spec.selector.matchLabels)],
    [
      'Replicas',
      `${replicas} desired | ${s.updatedReplicas ?? 0} updated | ${s.replicas ?? 0} total | ${s.availableReplicas ?? 0} available | ${s.unavailableReplicas ?? 0} unavailable`,
    ],
    ['Generation', `${m.generation ?? 1} (observed ${s.observedGeneration ?? '<none>'})`],
    ['StrategyType', strategy?.type ?? 'RollingUpdate'],
    ['MinReadySeconds', String(d.spec.minReadySeconds ?? 0)],
    ...(strategy?.type === 'Recreate'
      ? []
      : [
          [
            'RollingUpdateStrategy',
            `${strategy?.rollingUpdate?.maxUnavailable ?? '25%'} max unavailable, ${strategy?.rollingUpdate?.maxSurge ?? '25%'} max surge`,
          ] as [string, string],
        ]),
  ]);
  out += 'Pod Template:\n';
  out += formatFields(
    [
      ['Labels', pairs(t.metadata?.labels)],
      ['Annotations', pairs(t.metadata?.annotations)],
      ['Restart Policy', t.spec.restartPolicy ?? 'Always'],
      ['Node-Selectors', pairs(t.spec.nodeSelector)],
      ['Tolerations', (t.spec.tolerations ?? []).map(formatToleration)],
    ],
    '  ',
  );
  out += '  Containers:\n';
  for (const c of t.spec.containers) {
    out += `   ${c.name}:\n${formatFields(
      [
        ['Image', c.image ?? ''],
        ...(c.command ? [['Command', c.command] as [string, string[]]] : []),
        ...(c.args ? [['Args', c.args] as [string, string[]]] : []),
        ['Environment', (c.env ?? []).map((e) => `${e.name}=${e.value ?? ''}`)],
      ],
      '    ',
    )}`;
  }
  out += describeDeploymentConditions(d);
  out += describePods(d, pods, now);
  out += describeEvents(events, now, deps.colour);
  return out;
}

function describeDeploymentConditions(d: Deployment): string {
  const conditions = d.status.conditions ?? [];
  if (conditions.length === 0) return 'Conditions:  <none>\n';
  const table = new TablePrinter(['TYPE', 'STATUS', 'REASON', 'MESSAGE'], { indent: '  ' });
  return `Conditions:\n${table.format(conditions.map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '']))}`;
}

/** Pods shown under a Deployment; the rest are counted (a Deployment may have thousands). */
const MAX_PODS_SHOWN = 50;

function describePods(d: Deployment, pods: Pod[], now: number): string {
  if (pods.length === 0) return 'Pods:  <none>\n';
  const sorted = [...pods].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const table = new TablePrinter(POD_HEADERS, { indent: '  ' });
  let out = `Pods:\n${table.format(sorted.slice(0, MAX_PODS_SHOWN).map((p) => podRow(p, now, false, false)))}`;
  if (sorted.length > MAX_PODS_SHOWN) {
    const selector = formatSelector(d.spec.selector.matchLabels);
    out += `  … and ${sorted.length - MAX_PODS_SHOWN} more: sheepctl get pods -n ${d.metadata.namespace} -l ${selector}\n`;
  }
  return out;
}
