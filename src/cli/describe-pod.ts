import type { Event } from '../core/event.js';
import { isReason } from '../core/errors.js';
import { DEFAULT_NAMESPACE, type Container, type ContainerState, type Pod, type Toleration } from '../core/pod.js';
import { age } from './age.js';
import { LAST_APPLIED_ANNOTATION } from './apply-merge.js';
import { CliError, type CliDeps } from './cli-context.js';
import { describeEvents, formatFields } from './describe.js';
import { podController, podStatus } from './pod-table.js';
import { TablePrinter } from './table-printer.js';

type Field = [key: string, value: string | string[]];

/**
 * `sheepctl describe pod NAME`: the pod in one screen, as `kubectl describe pod` shows it: where it runs, its
 * status and conditions, each container with its state and restart count, its tolerations, its owner, and the
 * Events about it (those of its namespace: involvedObject.namespace, or none for Events written before it existed).
 */
export async function runDescribePod(deps: CliDeps, name: string, namespace = DEFAULT_NAMESPACE): Promise<number> {
  const opts = deps.signal ? { signal: deps.signal } : {};
  let pod: Pod;
  try {
    pod = await deps.client.pods(namespace).get(name, opts);
  } catch (err) {
    if (isReason(err, 'NotFound'))
      throw new CliError(`pod "${name}" not found in namespace ${namespace}`, { cause: err });
    throw err;
  }
  const events = await eventsAbout(deps, 'Pod', name, namespace);
  deps.out.write(describePod(deps, pod, events));
  return 0;
}

/** The Events about one namespaced object: a server-side selector on kind and name, the namespace checked here. */
export async function eventsAbout(deps: CliDeps, kind: string, name: string, namespace: string): Promise<Event[]> {
  const list = await deps.client.events.list({
    ...(deps.signal ? { signal: deps.signal } : {}),
    fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}`,
  });
  return list.items.filter((e) => (e.involvedObject.namespace ?? namespace) === namespace);
}

/** `k=v` lines, keys sorted; the last applied manifest (long JSON) is left out, as it is not for reading. */
export function pairs(rec: Record<string, string> | undefined): string[] {
  return Object.entries(rec ?? {})
    .filter(([k]) => k !== LAST_APPLIED_ANNOTATION)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`);
}

export function describePod(deps: Pick<CliDeps, 'now' | 'colour'>, pod: Pod, events: Event[]): string {
  const now = deps.now();
  const m = pod.metadata;
  const s = pod.status;
  const when = (t: string | undefined): string => (t === undefined ? '' : `${t} (${age(t, now)} ago)`);
  const status = podStatus(pod);
  let out = formatFields([
    ['Name', m.name],
    ['Namespace', m.namespace],
    ['Node', pod.spec.nodeName ? `${pod.spec.nodeName}${s.hostIP ? `/${s.hostIP}` : ''}` : '<none> (not scheduled)'],
    ['Start Time', when(s.startTime)],
    ['Labels', pairs(m.labels)],
    ['Annotations', pairs(m.annotations)],
    [
      'Status',
      m.deletionTimestamp === undefined
        ? status
        : `${status} since ${age(m.deletionTimestamp, now)} ago (grace period ${m.deletionGracePeriodSeconds ?? 0}s)`,
    ],
    ...(s.reason ? [['Reason', s.reason] as Field] : []),
    ...(s.message ? [['Message', s.message] as Field] : []),
    ['IP', s.hostIP ?? ''],
    ['Controlled By', podController(pod)],
  ]);
  out += 'Containers:\n';
  for (const c of pod.spec.containers) out += describeContainer(pod, c, now);
  out += describePodConditions(pod);
  out += formatFields([
    ['Restart Policy', pod.spec.restartPolicy ?? 'Always'],
    ['Termination Grace', `${pod.spec.terminationGracePeriodSeconds ?? 30}s`],
    ['Node-Selectors', pairs(pod.spec.nodeSelector)],
    ['Tolerations', (pod.spec.tolerations ?? []).map(formatToleration)],
  ]);
  out += describeEvents(events, now, deps.colour);
  return out;
}

function describeContainer(pod: Pod, c: Container, now: number): string {
  const st = pod.status.containerStatuses?.find((x) => x.name === c.name);
  const fields: Field[] = [['Image', c.image ?? '']];
  if (c.command) fields.push(['Command', c.command]);
  if (c.args) fields.push(['Args', c.args]);
  fields.push(
    ['State', st ? formatState(st.state, now) : 'Waiting (no status reported yet)'],
    ...(st?.lastState ? [['Last State', formatState(st.lastState, now)] as Field] : []),
    ['Ready', st ? (st.ready ? 'True' : 'False') : 'False'],
    ['Restart Count', String(st?.restartCount ?? 0)],
    ['Environment', (c.env ?? []).map((e) => `${e.name}=${e.value ?? ''}`)],
  );
  return `  ${c.name}:\n${formatFields(fields, '    ')}`;
}

/** `Running (since 5m)`, `Waiting: CrashLoopBackOff (back-off 40s …)`, `Terminated: Error, exit code 1 (2m ago)`. */
export function formatState(state: ContainerState, now: number): string {
  if (state.running)
    return `Running${state.running.startedAt ? ` (started ${age(state.running.startedAt, now)} ago)` : ''}`;
  const t = state.terminated;
  if (t) {
    const how = [t.reason, `exit code ${t.exitCode}`, ...(t.signal ? [`signal ${t.signal}`] : [])].filter(Boolean);
    const finished = t.finishedAt ? ` (finished ${age(t.finishedAt, now)} ago)` : '';
    return `Terminated: ${how.join(', ')}${finished}${t.message ? `: ${t.message}` : ''}`;
  }
  const w = state.waiting;
  if (w) return `Waiting${w.reason ? `: ${w.reason}` : ''}${w.message ? ` (${w.message})` : ''}`;
  return '';
}

function describePodConditions(pod: Pod): string {
  const conditions = pod.status.conditions ?? [];
  if (conditions.length === 0) return 'Conditions:  <none>\n';
  const table = new TablePrinter(['TYPE', 'STATUS', 'REASON', 'MESSAGE'], { indent: '  ' });
  return `Conditions:\n${table.format(conditions.map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '']))}`;
}

/** kubectl's toleration line: `node.kubernetes.io/unreachable:NoExecute op=Exists for 300s`. */
export function formatToleration(t: Toleration): string {
  const key = t.key ? `${t.key}${t.operator === 'Exists' ? '' : `=${t.value ?? ''}`}` : '';
  const effect = t.effect ? `:${t.effect}` : '';
  const op = t.operator === 'Exists' ? ' op=Exists' : '';
  const seconds = t.tolerationSeconds === undefined ? '' : ` for ${t.tolerationSeconds}s`;
  return `${key}${effect}${op}${seconds}`.trim();
}
